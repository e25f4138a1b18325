/**
 * The caller's side of the media worker: starts workers/media.worker.ts and wraps its comlink
 * `Remote<MediaWorkerApi>` so calls take an AbortSignal and a plain progress callback, and
 * errors come back as the media error classes.
 *
 * @module
 */
import { proxy, releaseProxy, wrap, type Remote } from 'comlink';
import { reviveMediaError } from './errors.ts';
import type {
  AudioRange,
  BuiltProxy,
  DecodedAudio,
  EnginePreference,
  FfmpegRunInfo,
  MediaProbe,
  MediaProgress,
  MediaWorkerApi,
  ProxySink,
  ScratchFileRef,
} from './protocol.ts';

/** Options shared by the client's calls. */
export interface MediaCallOptions {
  /** The source's label, named in error messages. */
  label: string;
  engine?: EnginePreference;
  signal?: AbortSignal;
}

/** A media worker and typed calls into it. */
export interface MediaClient {
  probe(blob: Blob, options: MediaCallOptions): Promise<MediaProbe & { ffmpeg?: FfmpegRunInfo }>;
  decodeAudio(
    blob: Blob,
    options: MediaCallOptions & {
      sampleRate: number;
      range?: AudioRange;
      onProgress?: (p: MediaProgress) => void;
      toFile?: ScratchFileRef;
    },
  ): Promise<DecodedAudio>;
  /** A camera's proxy, appended to `sink` (see `MediaWorkerApi.buildProxy`). */
  buildProxy(
    blob: Blob,
    options: MediaCallOptions & { sink: ProxySink; onProgress?: (p: MediaProgress) => void },
  ): Promise<BuiltProxy>;
  /** Stops ffmpeg.wasm (if started) and terminates the worker. */
  dispose(): Promise<void>;
}

/** Options of {@link createMediaClient}. */
export interface MediaClientOptions {
  /**
   * Where the optional ffmpeg core is served (the folder holding `ffmpeg-core/`), e.g. `/wasm/`;
   * see `FfmpegCoreOption` in src/media/protocol.ts. Unset: files the browser cannot read fail with a message.
   */
  ffmpegWasmBase?: string;
}

let counter = 0;

/**
 * Starts a media worker.
 *
 * @example
 * const media = createMediaClient();
 * const probe = await media.probe(file, { label: 'Cam A' });
 * const audio = await media.decodeAudio(file, { label: 'Cam A', sampleRate: 16000, signal });
 * await media.dispose();
 */
export function createMediaClient(
  worker: Worker = new Worker(new URL('../../workers/media.worker.ts', import.meta.url), { type: 'module' }),
  options: MediaClientOptions = {},
): MediaClient {
  const remote: Remote<MediaWorkerApi> = wrap<MediaWorkerApi>(worker);
  const core = options.ffmpegWasmBase === undefined ? {} : { ffmpegWasmBase: options.ffmpegWasmBase };

  async function call<T>(signal: AbortSignal | undefined, run: (requestId: string) => Promise<T>): Promise<T> {
    signal?.throwIfAborted();
    const requestId = `media_${++counter}`;
    const onAbort = () => void remote.abort(requestId);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await run(requestId);
    } catch (e) {
      throw reviveMediaError(e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    probe(blob, o) {
      return call(o.signal, (requestId) =>
        remote.probe(blob, { label: o.label, requestId, ...(o.engine ? { engine: o.engine } : {}), ...core }),
      );
    },
    decodeAudio(blob, o) {
      const progress = o.onProgress ? proxy(o.onProgress) : undefined;
      return call(o.signal, (requestId) =>
        remote.decodeAudio(
          blob,
          {
            label: o.label,
            sampleRate: o.sampleRate,
            requestId,
            ...(o.range ? { range: o.range } : {}),
            ...(o.toFile ? { toFile: o.toFile } : {}),
            ...(o.engine ? { engine: o.engine } : {}),
            ...core,
          },
          progress,
        ),
      );
    },
    buildProxy(blob, o) {
      const progress = o.onProgress ? proxy(o.onProgress) : undefined;
      return call(o.signal, (requestId) =>
        remote.buildProxy(blob, { label: o.label, requestId }, proxy(o.sink), progress),
      );
    },
    async dispose() {
      await remote.dispose().catch(() => undefined);
      remote[releaseProxy]();
      worker.terminate();
    },
  };
}
