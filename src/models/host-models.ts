/**
 * The optional model slots of single-mix speaker detection, as the analysis worker's speaker
 * detection (src/speakers/detect.ts) runs them:
 * a pyannote segmentation-3.0 model (local speakers: a count floor, turn changes, overlapped
 * speech) and a speaker-embedding model (speaker similarity), both supplied by the host app
 * as URLs. Each is fetched and loaded once per URL and kept for the next job, like the VAD.
 *
 * A supplied model that cannot be fetched, is not ONNX, or has the wrong inputs or shapes fails
 * the stage with a message naming its URL: the host asked for it, so silently falling back to
 * the built-in method would hide a broken deployment. Without URLs nothing here runs and the
 * built-in method stands on its own.
 *
 * @module
 */
import type { EmbeddingGrid } from '../analysis/diarize/embeddings.ts';
import type { LocalSpeakerWindows } from '../analysis/diarize/local.ts';
import { SpeakerEmbedding } from './embedding.ts';
import type { ExecutionProviderName, OrtModule } from './ort-runtime.ts';
import { PyannoteSegmentation, type OverlapTrack } from './segmentation.ts';

/** The optional model slots of single-mix speaker detection. */
export type HostModelSlot = 'segmentation' | 'embedding';

/** How a model slot was used by one diarize call. */
export type HostModelUse =
  /** No URL was given for the slot. */
  | { state: 'not-supplied' }
  /** A URL was given but the call ran per-mic diarization, which has no use for it. */
  | { state: 'skipped-per-mic' }
  /** The model ran: load time (0 when already loaded) and run time, ms. */
  | { state: 'used'; url: string; loadMs: number; runMs: number };

/** A supplied model that could not be used: the stage fails naming it (no silent fallback). */
export interface HostModelFailure {
  slot: HostModelSlot;
  url: string;
  /** Names the model URL and what was wrong. */
  message: string;
  /** The file itself is wrong (not ONNX, wrong inputs or shapes): retrying cannot help. Fetch failures are not permanent. */
  permanent: boolean;
}

/** The host-supplied model URLs of one diarize call (absolute URLs; either may be absent). */
export interface HostModelUrls {
  /** Pyannote segmentation-3.0: overlapped speech in single-mix mode. */
  segmentationModelUrl?: string;
  /** A speaker-embedding model: speaker similarity in single-mix mode. */
  embeddingModelUrl?: string;
}

/** A supplied model could not be used; carries what the stage reports. */
export class HostModelError extends Error {
  override readonly name = 'HostModelError';
  constructor(readonly failure: HostModelFailure) {
    super(failure.message);
  }
}

/** What the slots give diarizeMix, and how each slot was used. */
export interface HostModelOutputs {
  overlap?: OverlapTrack;
  localSpeakers?: LocalSpeakerWindows;
  embeddings?: EmbeddingGrid;
  uses: Record<HostModelSlot, HostModelUse>;
}

/** The model class behind each slot. */
interface SlotModels {
  segmentation: PyannoteSegmentation;
  embedding: SpeakerEmbedding;
}

interface Loaded<T> {
  url: string;
  model: Promise<T>;
}

const SLOT_NAMES: Record<HostModelSlot, string> = {
  segmentation: 'segmentation model',
  embedding: 'speaker-embedding model',
};

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Fetches a model file; HTTP and network failures are not permanent (the stage is retried once). */
async function fetchModel(slot: HostModelSlot, url: string, fetcher: typeof fetch): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetcher(url);
  } catch (error) {
    throw new HostModelError({
      slot,
      url,
      permanent: false,
      message: `the ${SLOT_NAMES[slot]} ${url} could not be fetched: ${messageOf(error)}`,
    });
  }
  if (!response.ok)
    throw new HostModelError({
      slot,
      url,
      permanent: false,
      message: `the ${SLOT_NAMES[slot]} ${url} answered HTTP ${response.status}`,
    });
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * The two slots of one worker. `ort` is whichever onnxruntime-web bundle the worker loaded
 * (already configured with its wasm path); `fetcher` defaults to `fetch`.
 *
 * @example
 * const slots = new HostModelSlots(ort);
 * const { localSpeakers, embeddings, uses } = await slots.run(request, mix16k, signal);
 * diarizeMix(mix16k, 16000, vadProbs, { ...(localSpeakers ? { localSpeakers } : {}), ...(embeddings ? { embeddings } : {}) });
 */
export class HostModelSlots {
  private readonly loaded: { [S in HostModelSlot]?: Loaded<SlotModels[S]> | undefined } = {};

  constructor(
    /** The onnxruntime-web module sessions are created with (configured by the caller). */
    readonly runtime: OrtModule,
    private readonly options: { executionProvider?: ExecutionProviderName; fetcher?: typeof fetch } = {},
  ) {}

  /** How the slots are used by a per-mic call: not at all, but a supplied URL is recorded as skipped. */
  static skippedPerMic(request: HostModelUrls): Record<HostModelSlot, HostModelUse> {
    return {
      segmentation: request.segmentationModelUrl ? { state: 'skipped-per-mic' } : { state: 'not-supplied' },
      embedding: request.embeddingModelUrl ? { state: 'skipped-per-mic' } : { state: 'not-supplied' },
    };
  }

  /**
   * Loads (once per URL) and runs the supplied models on the single-mix signal.
   *
   * @throws HostModelError naming the model URL when a supplied model cannot be used
   */
  async run(request: HostModelUrls, mix16k: Float32Array, signal?: AbortSignal): Promise<HostModelOutputs> {
    const out: HostModelOutputs = {
      uses: { segmentation: { state: 'not-supplied' }, embedding: { state: 'not-supplied' } },
    };
    const provider = this.options.executionProvider ? { executionProvider: this.options.executionProvider } : {};
    const segUrl = request.segmentationModelUrl;
    if (segUrl) {
      const seg = await this.use(
        'segmentation',
        segUrl,
        (bytes) => PyannoteSegmentation.create(this.runtime, bytes, provider),
        (model) => model.localSpeakers(mix16k, {}, signal),
        signal,
      );
      out.overlap = seg.value.overlap;
      out.localSpeakers = seg.value.local;
      out.uses.segmentation = seg.use;
    }
    const embUrl = request.embeddingModelUrl;
    if (embUrl) {
      const emb = await this.use(
        'embedding',
        embUrl,
        (bytes) =>
          SpeakerEmbedding.create(this.runtime, bytes, { label: `the speaker-embedding model ${embUrl}`, ...provider }),
        (model) => model.embedWindows(mix16k, {}, signal),
        signal,
      );
      out.embeddings = emb.value;
      out.uses.embedding = emb.use;
    }
    return out;
  }

  /** Releases the loaded sessions. */
  async dispose(): Promise<void> {
    const models = [this.loaded.segmentation?.model, this.loaded.embedding?.model];
    this.loaded.segmentation = this.loaded.embedding = undefined;
    for (const model of models)
      await model?.then(
        (m) => m.dispose(),
        () => undefined,
      );
  }

  /** Loads the slot's model once per URL, runs it, and times both. */
  private async use<S extends HostModelSlot, R>(
    slot: S,
    url: string,
    create: (bytes: Uint8Array) => Promise<SlotModels[S]>,
    run: (model: SlotModels[S]) => Promise<R>,
    signal?: AbortSignal,
  ): Promise<{ value: R; use: HostModelUse }> {
    const t0 = performance.now();
    const model = await this.loadOnce(slot, url, create);
    const t1 = performance.now();
    const value = await this.runModel(slot, url, () => run(model), signal);
    return { value, use: { state: 'used', url, loadMs: t1 - t0, runMs: performance.now() - t1 } };
  }

  /** A run-time failure of a loaded model (e.g. an output shape that changes with the batch) is the model's fault: permanent. */
  private async runModel<T>(slot: HostModelSlot, url: string, run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new HostModelError({
        slot,
        url,
        permanent: true,
        message: `the ${SLOT_NAMES[slot]} ${url} failed while running: ${messageOf(error)}`,
      });
    }
  }

  /** The slot's model for `url`: loaded once, kept until another URL replaces it (then disposed) or loading fails. */
  private loadOnce<S extends HostModelSlot>(
    slot: S,
    url: string,
    create: (bytes: Uint8Array) => Promise<SlotModels[S]>,
  ): Promise<SlotModels[S]> {
    const current = this.loaded[slot];
    if (current?.url === url) return current.model;
    const model = this.load(slot, url, create);
    (this.loaded as Record<HostModelSlot, Loaded<SlotModels[HostModelSlot]> | undefined>)[slot] = { url, model };
    void current?.model.then(
      (m) => m.dispose(),
      () => undefined,
    );
    model.catch(() => {
      if (this.loaded[slot]?.model === model) this.loaded[slot] = undefined;
    });
    return model;
  }

  private async load<T>(slot: HostModelSlot, url: string, create: (bytes: Uint8Array) => Promise<T>): Promise<T> {
    const bytes = await fetchModel(slot, url, this.options.fetcher ?? fetch);
    try {
      return await create(bytes);
    } catch (error) {
      const detail = messageOf(error);
      // The embedding loader already names the model; the segmentation loader does not.
      const message = detail.includes(url) ? detail : `the ${SLOT_NAMES[slot]} ${url} cannot be used: ${detail}`;
      throw new HostModelError({ slot, url, permanent: true, message });
    }
  }
}
