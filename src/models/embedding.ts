/**
 * Optional model slot: a speaker-embedding model supplied by the host app (never shipped), in
 * the ONNX export convention shared by WeSpeaker and 3D-Speaker: one float32 input
 * `[batch, frames, 80]` of Kaldi log-mel filterbanks (80 bins, 25 ms frames every 10 ms,
 * dither 0, signal scaled to 16-bit range, mean removed over each window) and one float32
 * output `[batch, dim]`, one speaker vector per window. Input and output names are read from
 * the model, so `feats`/`embs` (WeSpeaker) and other names both work.
 *
 * Features come from {@link kaldiFbank}, which uses Kaldi's default povey window (as
 * 3D-Speaker does); WeSpeaker trains with a Hamming window, a small mismatch that cosine
 * scoring of its embeddings tolerates.
 *
 * @module
 */
import type * as Ort from 'onnxruntime-web';
import type { EmbeddingGrid } from '../analysis/diarize/embeddings.ts';
import { kaldiFbank, numFramesSnipEdges } from '../analysis/speech/fbank.ts';
import type { ExecutionProviderName, OrtModule } from './ort-runtime.ts';

/** Mel bins the model convention expects. */
export const EMBEDDING_MEL_BINS = 80;
/** Fbank frame shift, ms. */
const FRAME_SHIFT_MS = 10;
/** Fbank frame length and shift in samples at 16 kHz (25 ms, 10 ms). */
const FRAME_LENGTH = 400;
const FRAME_SHIFT = 160;
/** A signal shorter than one window still gets one (shorter) window when it has at least this many frames. */
const MIN_WINDOW_FRAMES = 50;

/** Sliding windows of {@link SpeakerEmbedding.embedWindows}. */
export interface EmbeddingWindowOptions {
  /** Window length, ms (a multiple of 10). Default 1500. */
  windowMs?: number;
  /** Step between window starts, ms (a multiple of 10). Default 750. */
  hopMs?: number;
}

/** Options of {@link SpeakerEmbedding.create}. */
export interface SpeakerEmbeddingOptions {
  executionProvider?: ExecutionProviderName;
  /** How errors name the model, e.g. its URL. Default "speaker-embedding model". */
  label?: string;
  /** Windows per inference call. Default 16. */
  batchSize?: number;
}

/** A model load or shape problem; the message names the model. */
export class EmbeddingModelError extends Error {
  override readonly name = 'EmbeddingModelError';
}

/** The shape of a session value from its metadata, or undefined when the runtime gives none. */
function declaredShape(meta: Ort.InferenceSession.ValueMetadata | undefined): { type: string; shape: ReadonlyArray<number | string> } | undefined {
  if (!meta || !meta.isTensor) return undefined;
  return { type: meta.type, shape: meta.shape };
}

const describe = (shape: ReadonlyArray<number | string>): string => `[${shape.join(', ')}]`;

/**
 * A loaded speaker-embedding session.
 *
 * @example
 * const embedding = await SpeakerEmbedding.create(ort, bytes, { label: 'wespeaker_resnet34.onnx' });
 * const grid = await embedding.embedWindows(mix16k); // 1.5 s windows every 0.75 s
 * diarizeMix(mix16k, 16000, vadProbs, { embeddings: grid });
 */
export class SpeakerEmbedding {
  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    /** How messages name the model. */
    readonly label: string,
    readonly inputName: string,
    readonly outputName: string,
    /** Length of one embedding. */
    readonly dim: number,
    private readonly batchSize: number,
    /** Where the session runs. */
    readonly executionProvider: ExecutionProviderName,
  ) {}

  /**
   * Loads the model bytes, checks it has one float input `[batch, frames, 80]` and a float
   * output `[batch, dim]` (from its declared shapes, then with one trial window), and returns
   * the session. Throws {@link EmbeddingModelError} naming the model otherwise.
   */
  static async create(ort: OrtModule, model: Uint8Array, options: SpeakerEmbeddingOptions = {}): Promise<SpeakerEmbedding> {
    const label = options.label ?? 'speaker-embedding model';
    const executionProvider = options.executionProvider ?? 'wasm';
    let batchSize = options.batchSize ?? 16;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
    let session: Ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(model, { executionProviders: [executionProvider] });
    } catch (error) {
      throw new EmbeddingModelError(`${label}: not a loadable ONNX model (${error instanceof Error ? error.message : String(error)})`);
    }
    const fail = async (why: string): Promise<never> => {
      await session.release();
      throw new EmbeddingModelError(`${label}: ${why}; expected a speaker-embedding model with input [batch, frames, ${EMBEDDING_MEL_BINS}] fbank and output [batch, dim]`);
    };
    if (session.inputNames.length !== 1) return fail(`has ${session.inputNames.length} inputs (${session.inputNames.join(', ')})`);
    const inputName = session.inputNames[0]!;
    const outputName = session.outputNames[0];
    if (outputName === undefined) return fail('has no output');
    const input = declaredShape(session.inputMetadata?.[0]);
    if (input && input.type !== 'float32') return fail(`input "${inputName}" is ${input.type}`);
    if (input && input.shape.length > 0) {
      const bins = input.shape[2];
      if (input.shape.length !== 3 || (typeof bins === 'number' && bins !== EMBEDDING_MEL_BINS)) return fail(`input "${inputName}" is ${describe(input.shape)}`);
      // Some exports fix the batch size (often to 1).
      const batch = input.shape[0];
      if (typeof batch === 'number' && batch > 0) batchSize = Math.min(batchSize, batch);
    }
    const output = declaredShape(session.outputMetadata?.[0]);
    if (output && output.type !== 'float32') return fail(`output "${outputName}" is ${output.type}`);
    if (output && output.shape.length > 0 && output.shape.length !== 2) return fail(`output "${outputName}" is ${describe(output.shape)}`);

    // Two trial inputs of different batch and length: catch loose or absent declared shapes,
    // and an output that follows the number of frames (not an embedding).
    let dim = 0;
    for (const [batch, frames] of [
      [1, 150],
      [Math.min(2, batchSize), 100],
    ] as const) {
      const shape = `[${batch}, ${frames}, ${EMBEDDING_MEL_BINS}]`;
      let dims: readonly number[];
      try {
        const out = await session.run({ [inputName]: new ort.Tensor('float32', new Float32Array(batch * frames * EMBEDDING_MEL_BINS), [batch, frames, EMBEDDING_MEL_BINS]) });
        const y = out[outputName]!;
        dims = y.dims;
        y.dispose();
      } catch (error) {
        return fail(`a ${shape} input failed (${error instanceof Error ? error.message : String(error)})`);
      }
      if (dims.length !== 2 || dims[0] !== batch || !(dims[1]! > 0) || (dim > 0 && dims[1] !== dim)) {
        return fail(`a ${shape} input gave output ${describe(dims)}${dim > 0 ? ` (a [1, 150, ${EMBEDDING_MEL_BINS}] input gave [1, ${dim}])` : ''}`);
      }
      dim = dims[1]!;
    }
    return new SpeakerEmbedding(ort, session, label, inputName, outputName, dim, batchSize, executionProvider);
  }

  /**
   * One embedding per sliding window of a 16 kHz mono signal. Window `i` starts at
   * `i·hopMs`; windows run while they fit in the signal (the last partial hop is left out),
   * and a signal shorter than one window (but at least 0.5 s) gets one window of all of it.
   * Windows go to the model in batches; the fbank is computed per batch (Kaldi frames depend
   * only on their own samples, so this equals one pass over the file without holding an hour
   * of 80-bin features) and its mean removed per window.
   */
  async embedWindows(samples16k: Float32Array, windows: EmbeddingWindowOptions = {}, signal?: AbortSignal): Promise<EmbeddingGrid> {
    const windowMs = windows.windowMs ?? 1500;
    const hopMs = windows.hopMs ?? 750;
    if (!(windowMs >= 100) || windowMs % FRAME_SHIFT_MS !== 0) throw new RangeError(`windowMs must be a multiple of ${FRAME_SHIFT_MS} of at least 100, got ${windowMs}`);
    if (!(hopMs >= FRAME_SHIFT_MS) || hopMs % FRAME_SHIFT_MS !== 0) throw new RangeError(`hopMs must be a positive multiple of ${FRAME_SHIFT_MS}, got ${hopMs}`);
    const winFrames = windowMs / FRAME_SHIFT_MS;
    const hopFrames = hopMs / FRAME_SHIFT_MS;
    const T = numFramesSnipEdges(samples16k.length, FRAME_LENGTH, FRAME_SHIFT);
    const grid: EmbeddingGrid = { windowMs, hopMs, vectors: [] };
    if (T < MIN_WINDOW_FRAMES) return grid;
    if (T < winFrames) {
      grid.vectors.push(...(await this.runBatch(samples16k, [0], T)));
      return grid;
    }
    const count = Math.floor((T - winFrames) / hopFrames) + 1;
    for (let first = 0; first < count; first += this.batchSize) {
      signal?.throwIfAborted();
      const starts: number[] = [];
      for (let i = first; i < Math.min(count, first + this.batchSize); i++) starts.push(i * hopFrames);
      grid.vectors.push(...(await this.runBatch(samples16k, starts, winFrames)));
    }
    signal?.throwIfAborted();
    return grid;
  }

  /** Embeds the windows of `frames` fbank frames starting at frames `starts` (ascending), each mean-normalised. */
  private async runBatch(samples16k: Float32Array, starts: readonly number[], frames: number): Promise<Float32Array[]> {
    const bins = EMBEDDING_MEL_BINS;
    const firstFrame = starts[0]!;
    const lastFrame = starts[starts.length - 1]! + frames - 1;
    const fb = kaldiFbank(samples16k.subarray(firstFrame * FRAME_SHIFT, lastFrame * FRAME_SHIFT + FRAME_LENGTH), {
      numMelBins: bins,
      frameLength: (FRAME_LENGTH / 16000) * 1000,
      frameShift: FRAME_SHIFT_MS,
    });
    const x = new Float32Array(starts.length * frames * bins);
    const mean = new Float64Array(bins);
    starts.forEach((start, b) => {
      mean.fill(0);
      const src = fb.data.subarray((start - firstFrame) * bins, (start - firstFrame + frames) * bins);
      for (let t = 0; t < frames; t++) for (let k = 0; k < bins; k++) mean[k] = mean[k]! + src[t * bins + k]!;
      for (let k = 0; k < bins; k++) mean[k] = mean[k]! / frames;
      const dst = b * frames * bins;
      for (let t = 0; t < frames; t++) for (let k = 0; k < bins; k++) x[dst + t * bins + k] = src[t * bins + k]! - mean[k]!;
    });
    const out = await this.session.run({ [this.inputName]: new this.ort.Tensor('float32', x, [starts.length, frames, bins]) });
    const y = out[this.outputName]!;
    try {
      if (y.dims.length !== 2 || y.dims[0] !== starts.length || y.dims[1] !== this.dim) {
        throw new EmbeddingModelError(`${this.label}: a [${starts.length}, ${frames}, ${bins}] input gave output ${describe(y.dims)}, expected [${starts.length}, ${this.dim}]`);
      }
      const data = y.data as Float32Array;
      return starts.map((_, b) => data.slice(b * this.dim, (b + 1) * this.dim));
    } finally {
      y.dispose();
    }
  }

  /** Releases the session. */
  async dispose(): Promise<void> {
    await this.session.release();
  }
}
