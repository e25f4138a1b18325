/**
 * Silero VAD v6 (the ONNX file shipped by @ricky0123/vad-web, pinned in models/) on
 * onnxruntime-web: speech probability for every 512-sample (32 ms) frame of 16 kHz audio.
 *
 * @module
 */
import type * as Ort from 'onnxruntime-web';
import type { ExecutionProviderName, OrtModule } from './ort-runtime.ts';
import { asReader, type SampleInput, type SampleReader } from '../analysis/signal/sample-reader.ts';

/** Samples per VAD frame at 16 kHz (32 ms). */
export const SILERO_FRAME_SAMPLES = 512;
/** Tail of the previous frame the model sees before each frame (as silero-vad's OnnxWrapper), at 16 kHz. */
const CONTEXT_SAMPLES = 64;
/** The rates Silero takes: 16 kHz, or 8 kHz (frames of 256 samples, about half the work per frame). */
export type SileroRate = 16000 | 8000;
const STATE_SIZE = 2 * 128;
/** Samples a lane reads at once from a signal read by range (8 s at 8 kHz). */
const WINDOW_SAMPLES = 1 << 16;

/**
 * A lane's view of a signal read by range: the samples its frames need, read a window at a
 * time as the lane moves on (a signal in memory is read as views, without copies).
 */
class LaneWindow {
  private start = 0;
  private data: Float32Array = new Float32Array(0);

  constructor(private readonly reader: SampleReader) {}

  /** `row` filled with the samples from `from` on, zero outside the signal. */
  fill(row: Float32Array, from: number): void {
    const length = this.reader.length;
    const a = Math.max(0, from);
    const b = Math.min(length, from + row.length);
    if (a < this.start || b > this.start + this.data.length) {
      this.start = a;
      this.data = this.reader.read(a, Math.max(b, a + WINDOW_SAMPLES));
    }
    row.fill(0);
    for (let k = a; k < b; k++) row[k - from] = this.data[k - this.start]!;
  }
}

/** Options of {@link SileroVad.create}. */
export interface SileroVadOptions {
  executionProvider?: ExecutionProviderName;
  /**
   * Independent lanes run as one batch: the signal is cut into this many stretches, each
   * started `warmupFrames` early with a fresh state. One call per 32 ms frame costs ~2–5 ms
   * of overhead on wasm; batching 16 lanes makes VAD ~10× faster. Default 16.
   */
  lanes?: number;
  /** Frames each lane runs before its own stretch so its recurrent state has settled. Default 32 (1 s). */
  warmupFrames?: number;
}

/**
 * A loaded Silero VAD session. Dispose it when done (it holds wasm or GPU memory).
 *
 * @example
 * const vad = await SileroVad.create(ort, modelBytes);
 * const probs = await vad.speechProbabilities(samples16k); // one per 32 ms
 * vad.dispose();
 */
export class SileroVad {
  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    private readonly lanes: number,
    private readonly warmupFrames: number,
    /** Where the session runs. */
    readonly executionProvider: ExecutionProviderName,
  ) {}

  /** Loads the model bytes (models/silero_vad_v6.onnx) into a session. */
  static async create(ort: OrtModule, model: Uint8Array, options: SileroVadOptions = {}): Promise<SileroVad> {
    const provider = options.executionProvider ?? 'wasm';
    const session = await ort.InferenceSession.create(model, { executionProviders: [provider] });
    for (const name of ['input', 'state', 'sr']) {
      if (!session.inputNames.includes(name)) {
        await session.release();
        throw new Error(`silero_vad_v6.onnx: input "${name}" missing (has ${session.inputNames.join(', ')}); not a Silero v5/v6 model`);
      }
    }
    return new SileroVad(ort, session, Math.max(1, options.lanes ?? 16), Math.max(0, options.warmupFrames ?? 32), provider);
  }

  /**
   * Speech probability per 32 ms frame of mono `samples` at `rate` (512 samples at 16 kHz,
   * 256 at 8 kHz; a last partial frame is zero-padded). Deterministic for a given signal and
   * lane count. A signal read by range (a file) is read a window at a time per lane.
   */
  async speechProbabilities(input: SampleInput, signal?: AbortSignal, rate: SileroRate = 16000): Promise<Float32Array> {
    const samples = asReader(input);
    const frameSamples = rate === 8000 ? SILERO_FRAME_SAMPLES / 2 : SILERO_FRAME_SAMPLES;
    const contextSamples = rate === 8000 ? CONTEXT_SAMPLES / 2 : CONTEXT_SAMPLES;
    const frames = Math.ceil(samples.length / frameSamples);
    const out = new Float32Array(frames);
    if (frames === 0) return out;
    // Short signals: one lane, so the result is exactly the streaming result.
    const lanes = Math.max(1, Math.min(this.lanes, Math.floor(frames / (4 * this.warmupFrames + 1))));
    const perLane = Math.ceil(frames / lanes);
    const steps = perLane + (lanes > 1 ? this.warmupFrames : 0);
    const width = contextSamples + frameSamples;
    const sr = new this.ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), []);
    let state: Ort.Tensor = new this.ort.Tensor('float32', new Float32Array(STATE_SIZE * lanes), [2, lanes, 128]);
    const batch = new Float32Array(lanes * width);
    const windows = Array.from({ length: lanes }, () => new LaneWindow(samples));
    try {
      for (let step = 0; step < steps; step++) {
        signal?.throwIfAborted();
        for (let b = 0; b < lanes; b++) {
          // Lane b's first frame is warmup frames before its stretch (lane 0 has none).
          const start = b === 0 ? 0 : b * perLane - this.warmupFrames;
          const frame = b === 0 ? step - (lanes > 1 ? this.warmupFrames : 0) : start + step;
          const row = batch.subarray(b * width, (b + 1) * width);
          if (frame < 0) row.fill(0);
          else windows[b]!.fill(row, frame * frameSamples - contextSamples);
        }
        const result = await this.session.run({ input: new this.ort.Tensor('float32', batch.slice(), [lanes, width]), state, sr });
        const probs = result['output'];
        const next = result['stateN'];
        if (!probs || !next) throw new Error('silero_vad_v6.onnx: outputs "output" and "stateN" expected');
        // Lane 0 starts at frame 0: it idles (zero input, state reset below) during warmup.
        const data = probs.data as Float32Array;
        state.dispose();
        state = next;
        if (lanes > 1 && step === this.warmupFrames - 1) {
          const s = new Float32Array(state.data as Float32Array);
          for (let k = 0; k < 2; k++) s.fill(0, k * lanes * 128, k * lanes * 128 + 128);
          state.dispose();
          state = new this.ort.Tensor('float32', s, [2, lanes, 128]);
        }
        for (let b = 0; b < lanes; b++) {
          const frame = b === 0 ? step - (lanes > 1 ? this.warmupFrames : 0) : b * perLane - this.warmupFrames + step;
          const own = b === 0 ? frame >= 0 : frame >= b * perLane;
          if (own && frame < frames && frame < (b + 1) * perLane) out[frame] = data[b]!;
        }
        probs.dispose();
      }
    } finally {
      state.dispose();
      sr.dispose();
    }
    return out;
  }

  /** Releases the session. */
  async dispose(): Promise<void> {
    await this.session.release();
  }
}
