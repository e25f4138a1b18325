/**
 * Optional model slot: pyannote segmentation-3.0 (supplied by the host app, never shipped:
 * MIT, 1.5 MB as int8 ONNX). Input 10 s of 16 kHz mono `[N, 1, 160000]`; output
 * `[N, 589, 7]` log-probabilities of the powerset classes {∅, 1, 2, 3, 1+2, 1+3, 2+3} of up
 * to three local speakers. We use each window's local speakers (a local speaker's
 * probability is the sum of the classes that contain it; local.ts ties them to the file's
 * speakers) and overlapped speech: P(overlap) = P(1+2) + P(1+3) + P(2+3).
 *
 * @module
 */
import type * as Ort from 'onnxruntime-web';
import type { LocalSpeakerWindows } from '../analysis/diarize/local.ts';
import type { ExecutionProviderName, OrtModule } from './ort-runtime.ts';

/** Samples per window at 16 kHz (10 s). */
export const SEGMENTATION_WINDOW = 160000;

/** Overlap probability on the model's frame grid. */
export interface OverlapTrack {
  /** ms per value. */
  frameMs: number;
  values: Float32Array;
}

/**
 * A loaded segmentation-3.0 session.
 *
 * @example
 * const seg = await PyannoteSegmentation.create(ort, bytes);
 * const overlap = await seg.overlapProbabilities(mix16k);
 * diarizeMix(mix16k, 16000, vadProbs, { overlap });
 */
export class PyannoteSegmentation {
  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
  ) {}

  /** Loads the model bytes; checks the input/output names of segmentation-3.0. */
  static async create(ort: OrtModule, model: Uint8Array, options: { executionProvider?: ExecutionProviderName } = {}): Promise<PyannoteSegmentation> {
    const session = await ort.InferenceSession.create(model, { executionProviders: [options.executionProvider ?? 'wasm'] });
    if (session.inputNames[0] !== 'x' || session.outputNames[0] !== 'y') {
      await session.release();
      throw new Error(`segmentation model: expected input "x" and output "y" (pyannote segmentation-3.0), got ${session.inputNames.join(',')} → ${session.outputNames.join(',')}`);
    }
    return new PyannoteSegmentation(ort, session);
  }

  /**
   * Local speaker activity on 10 s windows every `stepMs` (the last window ends with the
   * signal), and P(two or more speakers) per model frame averaged over the windows that cover
   * it. Each local speaker's probability is the sum of the powerset classes that contain it.
   */
  async localSpeakers(samples: Float32Array, options: { stepMs?: number } = {}, signal?: AbortSignal): Promise<{ local: LocalSpeakerWindows; overlap: OverlapTrack }> {
    const step = Math.max(1600, Math.round(((options.stepMs ?? 2500) / 1000) * 16000));
    const starts: number[] = [];
    for (let s = 0; s + SEGMENTATION_WINDOW < samples.length; s += step) starts.push(s);
    starts.push(Math.max(0, samples.length - SEGMENTATION_WINDOW));
    const windows: LocalSpeakerWindows['windows'] = [];
    let frameMs = 0;
    let overlapSum = new Float32Array(0);
    let overlapCount = new Uint16Array(0);
    for (const start of starts) {
      signal?.throwIfAborted();
      const x = new Float32Array(SEGMENTATION_WINDOW);
      x.set(samples.subarray(start, Math.min(samples.length, start + SEGMENTATION_WINDOW)));
      const logp = await this.runWindow(x);
      const frames = logp.length / 7;
      if (frameMs === 0) {
        frameMs = (SEGMENTATION_WINDOW / 16000 / frames) * 1000;
        const total = Math.ceil((samples.length / 16000) * 1000 / frameMs);
        overlapSum = new Float32Array(total);
        overlapCount = new Uint16Array(total);
      }
      const activity = new Float32Array(frames * 3);
      const offset = Math.round((start / 16000) * 1000 / frameMs);
      const p = new Float64Array(7);
      for (let t = 0; t < frames; t++) {
        for (let c = 0; c < 7; c++) p[c] = Math.exp(logp[t * 7 + c]!);
        // Powerset {∅, 1, 2, 3, 1+2, 1+3, 2+3}.
        activity[t * 3] = p[1]! + p[4]! + p[5]!;
        activity[t * 3 + 1] = p[2]! + p[4]! + p[6]!;
        activity[t * 3 + 2] = p[3]! + p[5]! + p[6]!;
        const g = offset + t;
        if (g < overlapSum.length) {
          overlapSum[g] = overlapSum[g]! + p[4]! + p[5]! + p[6]!;
          overlapCount[g] = overlapCount[g]! + 1;
        }
      }
      windows.push({ startMs: (start / 16000) * 1000, activity });
    }
    const values = overlapSum.map((v, i) => (overlapCount[i]! > 0 ? v / overlapCount[i]! : 0));
    return { local: { frameMs, speakers: 3, windows }, overlap: { frameMs, values } };
  }

  /** Powerset log-probabilities of one 10 s window, `frames × 7`. */
  private async runWindow(x: Float32Array): Promise<Float32Array> {
    const out = await this.session.run({ x: new this.ort.Tensor('float32', x, [1, 1, SEGMENTATION_WINDOW]) });
    const y = out['y'];
    if (!y || y.dims.length !== 3 || y.dims[2] !== 7) throw new Error('segmentation model: output "y" must be [N, T, 7]');
    const data = (y.data as Float32Array).slice();
    y.dispose();
    return data;
  }

  /** P(two or more speakers) per model frame over the whole signal (10 s windows, no overlap). */
  async overlapProbabilities(samples: Float32Array, signal?: AbortSignal): Promise<OverlapTrack> {
    const windows = Math.max(1, Math.ceil(samples.length / SEGMENTATION_WINDOW));
    const parts: Float32Array[] = [];
    for (let w = 0; w < windows; w++) {
      signal?.throwIfAborted();
      const x = new Float32Array(SEGMENTATION_WINDOW);
      x.set(samples.subarray(w * SEGMENTATION_WINDOW, Math.min(samples.length, (w + 1) * SEGMENTATION_WINDOW)));
      const logp = await this.runWindow(x);
      parts.push(Float32Array.from({ length: logp.length / 7 }, (_, t) => Math.exp(logp[t * 7 + 4]!) + Math.exp(logp[t * 7 + 5]!) + Math.exp(logp[t * 7 + 6]!)));
    }
    const framesPerWindow = parts[0]!.length;
    const values = new Float32Array(parts.length * framesPerWindow);
    parts.forEach((p, i) => values.set(p, i * framesPerWindow));
    return { frameMs: (SEGMENTATION_WINDOW / 16000 / framesPerWindow) * 1000, values };
  }

  /** Releases the session. */
  async dispose(): Promise<void> {
    await this.session.release();
  }
}
