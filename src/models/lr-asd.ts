/**
 * Optional model slot: LR-ASD, an audio-visual active speaker detector (Liao Junhua, MIT, about
 * 1 M parameters; supplied by the host app, never shipped). Given one face track's lower-face
 * crops at 25 fps and the audio's MFCC at 100 frames a second, it gives one logit per video
 * frame: higher when this face is speaking this audio. Absolute values depend on the audio
 * (a room mix scores everyone higher), so compare faces and stretches with each other.
 *
 * Inputs `audio` `[1, 4T, 13]` and `video` `[1, T, 112, 112]`, output `score` `[T]`; features
 * and score averaging are in ../analysis/faces/asd-features.ts.
 *
 * @module
 */
import type * as Ort from 'onnxruntime-web';
import {
  ASD_AUDIO_PER_VIDEO,
  ASD_CROP_SIZE,
  ASD_MFCC_COEFFS,
  ASD_WINDOW_SECONDS,
  asdScoredFrames,
  asdWindows,
  combineAsdScores,
  type AsdMfcc,
} from '../analysis/faces/asd-features.ts';
import type { ExecutionProviderName, OrtModule } from './ort-runtime.ts';

const AUDIO = 'audio';
const VIDEO = 'video';
const SCORE = 'score';

/** Options of {@link LrAsd.scoreTrack}. */
export interface LrAsdTrackOptions {
  /** Window lengths (s); each frame's logit is the mean over them. Default 1 to 6 s, as the demo. */
  windowSeconds?: readonly number[];
  signal?: AbortSignal;
}

/**
 * A loaded LR-ASD session. Dispose it when done.
 *
 * @example
 * const asd = await LrAsd.create(ort, modelBytes);
 * const scores = await asd.scoreTrack(asdMfcc(mono16k), crops); // crops: T × 112 × 112 grey levels
 * await asd.dispose();
 */
export class LrAsd {
  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    readonly executionProvider: ExecutionProviderName,
  ) {}

  /**
   * Loads the model bytes into a session.
   *
   * @throws Error naming the model (`label`, default "the active-speaker model") when its inputs
   *   or output are not LR-ASD's.
   */
  static async create(
    ort: OrtModule,
    model: Uint8Array,
    options: { executionProvider?: ExecutionProviderName; label?: string } = {},
  ): Promise<LrAsd> {
    const provider = options.executionProvider ?? 'wasm';
    const session = await ort.InferenceSession.create(model, { executionProviders: [provider] });
    const inputs = [...session.inputNames].sort().join(',');
    if (inputs !== `${AUDIO},${VIDEO}` || session.outputNames[0] !== SCORE) {
      await session.release();
      throw new Error(
        `${options.label ?? 'the active-speaker model'}: expected inputs "audio", "video" and output "score" (LR-ASD), got ${session.inputNames.join(',')} → ${session.outputNames.join(',')}`,
      );
    }
    return new LrAsd(ort, session, provider);
  }

  /**
   * Logits of one window: `mfcc` holds `4·frames × 13` values, `crops` `frames × 112 × 112`.
   *
   * @throws RangeError when the lengths do not match `frames`.
   */
  async scoreWindow(mfcc: Float32Array, crops: Float32Array, frames: number): Promise<Float32Array> {
    const audioLength = frames * ASD_AUDIO_PER_VIDEO * ASD_MFCC_COEFFS;
    const videoLength = frames * ASD_CROP_SIZE * ASD_CROP_SIZE;
    if (frames < 1 || mfcc.length !== audioLength || crops.length !== videoLength)
      throw new RangeError(
        `LR-ASD window of ${frames} frames takes ${audioLength} MFCC and ${videoLength} crop values, got ${mfcc.length} and ${crops.length}`,
      );
    const audio = new this.ort.Tensor('float32', mfcc, [1, frames * ASD_AUDIO_PER_VIDEO, ASD_MFCC_COEFFS]);
    const video = new this.ort.Tensor('float32', crops, [1, frames, ASD_CROP_SIZE, ASD_CROP_SIZE]);
    const out = await this.session.run({ [AUDIO]: audio, [VIDEO]: video });
    const score = out[SCORE];
    try {
      if (!score || score.data.length !== frames)
        throw new Error(`LR-ASD: output "score" has ${score?.data.length ?? 0} values for ${frames} frames`);
      return (score.data as Float32Array).slice();
    } finally {
      score?.dispose();
    }
  }

  /**
   * Per-frame scores of one face track against one audio, as the demo scores it: audio and
   * video cut to {@link asdScoredFrames} frames (the result's length), windows of each length
   * in `windowSeconds`, each frame's logit averaged over the lengths, then over ±2 frames.
   * A window that several lengths share (the whole of a short track) is run once.
   *
   * @param crops `videoFrames × 112 × 112` grey levels (asdFaceCrop of each frame)
   */
  async scoreTrack(mfcc: AsdMfcc, crops: Float32Array, options: LrAsdTrackOptions = {}): Promise<Float32Array> {
    const cropSize = ASD_CROP_SIZE * ASD_CROP_SIZE;
    if (crops.length % cropSize !== 0)
      throw new RangeError(`LR-ASD crops: ${crops.length} values is not a whole number of 112×112 frames`);
    const frames = asdScoredFrames(mfcc.frames, crops.length / cropSize);
    if (frames === 0) return new Float32Array(0);
    const done = new Map<string, Float32Array>();
    const passes: Float32Array[] = [];
    for (const windows of asdWindows(frames, options.windowSeconds ?? ASD_WINDOW_SECONDS)) {
      const pass = new Float32Array(frames);
      for (const w of windows) {
        options.signal?.throwIfAborted();
        const key = `${w.start}+${w.frames}`;
        let logits = done.get(key);
        if (!logits) {
          const a0 = w.start * ASD_AUDIO_PER_VIDEO * ASD_MFCC_COEFFS;
          const a1 = (w.start + w.frames) * ASD_AUDIO_PER_VIDEO * ASD_MFCC_COEFFS;
          logits = await this.scoreWindow(
            mfcc.values.subarray(a0, a1),
            crops.subarray(w.start * cropSize, (w.start + w.frames) * cropSize),
            w.frames,
          );
          done.set(key, logits);
        }
        pass.set(logits, w.start);
      }
      passes.push(pass);
    }
    return combineAsdScores(passes);
  }

  /** Frees the session. */
  async dispose(): Promise<void> {
    await this.session.release();
  }
}
