/**
 * The media worker's implementation of {@link MediaWorkerApi}: mediabunny first, ffmpeg.wasm
 * when mediabunny does not recognise the container or the browser cannot decode the codec (or
 * when the caller forces it). Runs inside workers/media.worker.ts; usable directly in any
 * worker-like scope too.
 *
 * @module
 */
import { FFMPEG_CORE_STEPS } from './decodability.ts';
import { MediaAbortError, NoAudioTrackError, UnreadableMediaError } from './errors.ts';
import { FfmpegRunner, type FfmpegOptions } from './ffmpeg-decoder.ts';
import { decodeWithMediabunny, probeWithMediabunny } from './mediabunny-decoder.ts';
import { buildProxy } from './proxy.ts';
import { createScratchFile, fileOutput, type ScratchSamples } from './scratch.ts';
import type {
  AudioRange,
  BuildProxyOptions,
  BuiltProxy,
  DecodeAudioOptions,
  DecodedAudio,
  FfmpegRunInfo,
  MediaProbe,
  MediaProgress,
  MediaWorkerApi,
  ProbeOptions,
  ProxySink,
} from './protocol.ts';

/**
 * Runs the mediabunny path, then ffmpeg.wasm when it cannot; passes through aborts and "no audio".
 * A result read by ffmpeg.wasm after mediabunny failed carries `fallbackReason`, so the job can say so.
 */
async function withFallback<T extends { fallbackReason?: string }>(
  label: string,
  signal: AbortSignal,
  engine: DecodeAudioOptions['engine'],
  viaMediabunny: () => Promise<T>,
  viaFfmpeg: (() => Promise<T>) | null,
): Promise<T> {
  let firstReason = '';
  if (engine !== 'ffmpeg.wasm') {
    try {
      return await viaMediabunny();
    } catch (e) {
      if (signal.aborted) throw new MediaAbortError(`${label}: cancelled`);
      if (e instanceof NoAudioTrackError) throw e;
      firstReason = e instanceof Error ? e.message : String(e);
    }
  }
  if (!viaFfmpeg)
    throw new UnreadableMediaError(
      `${label}: the browser cannot read the file${firstReason ? ` (${firstReason})` : ''}, and the app did not enable the optional ffmpeg core that reads more formats (${FFMPEG_CORE_STEPS})`,
    );
  try {
    const result = await viaFfmpeg();
    return firstReason ? { ...result, fallbackReason: firstReason } : result;
  } catch (e) {
    if (signal.aborted) throw new MediaAbortError(`${label}: cancelled`);
    if (e instanceof NoAudioTrackError || e instanceof UnreadableMediaError) {
      if (firstReason) e.message += `; mediabunny: ${firstReason}`;
      throw e;
    }
    const msg = e instanceof Error ? e.message : String(e);
    throw new UnreadableMediaError(
      `${label}: the file cannot be read (ffmpeg.wasm: ${msg}${firstReason ? `; mediabunny: ${firstReason}` : ''})`,
    );
  }
}

/** The ffmpeg.wasm path through `runner`, or null when the app did not enable the core. */
function viaCore<T>(runner: FfmpegRunner | null, run: (ff: FfmpegRunner) => Promise<T>): (() => Promise<T>) | null {
  return runner ? () => run(runner) : null;
}

/**
 * Creates the service; one per worker. It owns one lazily started ffmpeg.wasm instance per core
 * folder a call names (`ffmpegWasmBase`); a call without one never starts ffmpeg.wasm.
 */
export function createMediaService(options: Omit<FfmpegOptions, 'wasmBase'> = {}): MediaWorkerApi {
  const runners = new Map<string, FfmpegRunner>();
  const ffmpegAt = (wasmBase: string | undefined): FfmpegRunner | null => {
    if (wasmBase === undefined) return null;
    let runner = runners.get(wasmBase);
    if (!runner) runners.set(wasmBase, (runner = new FfmpegRunner({ ...options, wasmBase })));
    return runner;
  };
  const running = new Map<string, AbortController>();

  function begin(requestId: string | undefined): { signal: AbortSignal; end(): void } {
    const controller = new AbortController();
    if (requestId !== undefined) running.set(requestId, controller);
    return { signal: controller.signal, end: () => requestId !== undefined && running.delete(requestId) };
  }

  return {
    async probe(blob: Blob, o: ProbeOptions): Promise<MediaProbe & { ffmpeg?: FfmpegRunInfo }> {
      const req = begin(o.requestId);
      try {
        return await withFallback(
          o.label,
          req.signal,
          o.engine,
          () => probeWithMediabunny(blob, req.signal),
          viaCore(ffmpegAt(o.ffmpegWasmBase), (ff) => ff.probe(blob, o.label, req.signal)),
        );
      } finally {
        req.end();
      }
    },

    async decodeAudio(
      blob: Blob,
      o: DecodeAudioOptions,
      onProgress?: (p: MediaProgress) => void,
    ): Promise<DecodedAudio> {
      if (!(Number.isInteger(o.sampleRate) && o.sampleRate >= 1000 && o.sampleRate <= 192000)) {
        throw new RangeError(`decodeAudio: sampleRate must be an integer from 1000 to 192000 (got ${o.sampleRate})`);
      }
      const range = o.range;
      if (range && !(range.startMs >= 0 && range.endMs > range.startMs))
        throw new RangeError(`decodeAudio: range must have 0 ≤ startMs < endMs (got ${range.startMs}‥${range.endMs})`);
      const req = begin(o.requestId);
      // To a file where one can be written (else in memory, as usual).
      const file = o.toFile ? await createScratchFile(o.toFile) : null;
      const decode = (file: ScratchSamples | null): Promise<DecodedAudio> =>
        withFallback(
          o.label,
          req.signal,
          o.engine,
          // createScratchFile gave the file empty.
          () =>
            decodeWithMediabunny(
              blob,
              o.sampleRate,
              o.label,
              req.signal,
              onProgress,
              range,
              file ? fileOutput(file) : undefined,
            ),
          viaCore(ffmpegAt(o.ffmpegWasmBase), async (ff) => {
            const all = await ff.decodeAudio(blob, o.sampleRate, o.label, req.signal, onProgress);
            const samples = range ? sliceRange(all.samples, o.sampleRate, range) : all.samples;
            if (!file) return { ...all, samples };
            // ffmpeg.wasm decodes the whole file in memory; then it goes to the file too.
            file.truncate(0);
            const output = fileOutput(file);
            output.write(samples);
            return { ...all, samples: output.finish() };
          }),
        );
      try {
        try {
          const decoded = await decode(file);
          return file && o.toFile ? { ...decoded, file: { ...o.toFile, length: file.length } } : decoded;
        } catch (error) {
          // The disk or the quota filled up while writing: the samples come back in memory instead
          // (a full disk is not an unreadable file).
          if (!file?.writeFailed || req.signal.aborted) throw error;
          try {
            file.truncate(0);
          } catch {
            // what was written goes with the folder
          }
          file.close();
          return await decode(null);
        }
      } finally {
        file?.close();
        req.end();
      }
    },

    async buildProxy(
      blob: Blob,
      o: BuildProxyOptions,
      sink: ProxySink,
      onProgress?: (p: MediaProgress) => void,
    ): Promise<BuiltProxy> {
      const req = begin(o.requestId);
      try {
        return await buildProxy(blob, o.label, sink, onProgress, req.signal);
      } finally {
        req.end();
      }
    },

    abort(requestId: string): void {
      running.get(requestId)?.abort();
    },

    async dispose(): Promise<void> {
      for (const c of running.values()) c.abort();
      for (const runner of runners.values()) runner.dispose();
    },
  };
}

/** The samples of `range` in a whole decode (the ffmpeg.wasm path decodes the whole file). */
function sliceRange(samples: Float32Array, sampleRate: number, range: AudioRange): Float32Array {
  const from = Math.min(samples.length, Math.round((range.startMs / 1000) * sampleRate));
  const to = Math.min(samples.length, Math.round((range.endMs / 1000) * sampleRate));
  return samples.slice(from, to);
}
