/**
 * A speech compressor for one source (one mic, or a single mix) ahead of the mix and its
 * true-peak limiter: it takes the peaks of a voice down towards the voice's own level, so the
 * limiter after the mix has little left to do. Pure and streaming.
 *
 * Why per source and relative to the source's own level: a limiter on the mix takes most from
 * whichever voice is loudest, so it flattens a person's gain nudge (one voice set 6 dB under the
 * other) and, on raw voices whose peaks stand 20 dB over their loudness, a −16 LUFS target makes
 * it work by 20 dB and more. Here the threshold follows the source's own speech level (a slow,
 * gated energy average of its 100 ms blocks), so a quiet mic and a loud one are compressed
 * alike, and every gain after it (levelling, ride, a person's nudge, the master gain) is linear:
 * the distances the levelling sets between voices survive to the limiter, which then only
 * catches what the attack lets through.
 *
 * Method: the detector is the sample peak over channels; the gain computer has a threshold
 * `thresholdDb` over the tracked level (of the mean square, unweighted), a `ratio` and a soft
 * knee of `kneeDb`, computed on the peak of each 1 ms step (the gain is interpolated linearly
 * between steps, so it never jumps). Like the limiter (src/analysis/audio/limiter.ts) it looks ahead:
 * each step is turned down at least as much as its own peak needs, and the steps before a peak
 * already part of the way (a ramp over `lookaheadMs`), so a plosive is caught at its start (a
 * compressor without look-ahead lets the first milliseconds of a transient through, which is
 * what the limiter then has to catch); it comes back with the `releaseMs` time constant. The output is `latency` samples late: the
 * render reads its sources that far ahead (src/render/audio-mix.ts). The level
 * tracker starts at the first block above {@link SPEECH_FLOOR_DB} and moves only on blocks
 * within `gateDb` of it (speech, not the pauses nor another voice's bleed into the mic).
 *
 * The same source samples in the same order give the same output whatever the chunk sizes: the
 * render runs it once in its analysis pass (the levelling is planned on the compressed sources)
 * and again in the mix, and both see the same signal.
 *
 * @module
 */

/** Compressor settings (see the module doc); {@link DEFAULT_COMPRESSOR} holds the render's. */
export interface CompressorSettings {
  /** The threshold over the source's tracked speech level (of the mean square), dB. */
  thresholdDb: number;
  /** Input dB over the threshold per output dB (≥ 1). */
  ratio: number;
  /** Width of the soft knee, dB (0: hard). */
  kneeDb: number;
  /** How far ahead the gain starts to go down (the attack), ms. */
  lookaheadMs: number;
  /** Time constant of the gain coming back, ms. */
  releaseMs: number;
  /** Time constant of the tracked speech level going down, s (over blocks that pass its gate; up: a tenth of it). */
  levelSec: number;
  /** A 100 ms block moves the tracked level only when it is at most this far under it, dB (> 0). */
  gateDb: number;
}

/**
 * The render's settings: chosen on LibriSpeech readers 1688 and 2414 (eval/loudness.ts's tuning
 * split) and on generated peaky speech, not on the readers the figures are reported on.
 */
export const DEFAULT_COMPRESSOR: Readonly<CompressorSettings> = {
  thresholdDb: 0,
  ratio: 8,
  kneeDb: 6,
  lookaheadMs: 3,
  releaseMs: 60,
  levelSec: 5,
  gateDb: 10,
};

/** Blocks under this mean square (dBFS) never start or move the level tracker: silence and hiss. */
export const SPEECH_FLOOR_DB = -60;

const BLOCK_SEC = 0.1;
const DB_PER_NEPER = 20 / Math.LN10;

/** Samples per step of the gain computer: 1 ms at 48 kHz (the gain is interpolated in between). */
const STEP_SEC = 0.001;

/**
 * @example
 * const compressor = new SpeechCompressor(1, 48000);
 * const out = compressor.process([mic]); // same length, compressor.latency samples behind
 * compressor.maxReductionDb; // the most it took off so far
 */
export class SpeechCompressor {
  readonly channels: number;
  readonly settings: Readonly<CompressorSettings>;
  /** Samples the output lags the input by. */
  readonly latency: number;
  /** Samples per step of the gain computer. */
  private readonly step: number;
  /** The look-ahead, in steps. */
  private readonly ahead: number;
  private readonly blockSamples: number;
  private readonly releaseStep: number;
  private readonly levelAlpha: number;
  private readonly levelRiseAlpha: number;
  private readonly gate: number;
  private readonly floor: number;
  private readonly slope: number;
  /** Ring of the last inputs per channel (the delay line). */
  private readonly history: Float64Array[];
  private readonly historyMask: number;
  /** Ring of each step's reduction by the static curve (dB, from the step's peak). */
  private readonly need: Float64Array;
  private readonly needMask: number;
  /** Steps completed. */
  private steps = 0;
  private stepPeak = 0;
  private stepFill = 0;
  /** Input samples so far. */
  private n = 0;
  /** Output samples so far (they start once the look-ahead has filled). */
  private emitted = 0;
  /** The gain at the start and the end of the step being played out, linear. */
  private gainFrom = 1;
  private gainTo = 1;
  /** Tracked mean square of speech; 0 until the first block above the floor. */
  private level = 0;
  /** Threshold as a sample amplitude where the knee starts (below it: no reduction), and in dB. */
  private kneeStartLin = Infinity;
  private thresholdDb = Infinity;
  private blockSum = 0;
  private blockFill = 0;
  /** The reduction at the last step boundary, dB (≥ 0). */
  private reduction = 0;
  private most = 0;
  private reducedSum = 0;

  constructor(channels: number, sampleRate: number, settings: Partial<CompressorSettings> = {}) {
    const s = { ...DEFAULT_COMPRESSOR, ...settings };
    if (!(s.ratio >= 1)) throw new RangeError(`compressor ratio must be at least 1 (got ${s.ratio})`);
    if (!(s.gateDb > 0)) throw new RangeError(`compressor gateDb must be above 0 (got ${s.gateDb})`);
    this.channels = channels;
    this.settings = s;
    this.step = Math.max(1, Math.round(sampleRate * STEP_SEC));
    this.ahead = Math.max(1, Math.round(s.lookaheadMs / 1000 / (this.step / sampleRate)));
    // Step t plays out once steps t ‥ t + ahead are known.
    this.latency = (this.ahead + 1) * this.step;
    this.blockSamples = Math.round(sampleRate * BLOCK_SEC);
    this.releaseStep = 1 - Math.exp(-this.step / ((Math.max(0.01, s.releaseMs) / 1000) * sampleRate));
    this.levelAlpha = 1 - Math.exp(-BLOCK_SEC / s.levelSec);
    this.levelRiseAlpha = 1 - Math.exp(-BLOCK_SEC / (s.levelSec / 10));
    this.gate = 10 ** (-s.gateDb / 10);
    this.floor = 10 ** (SPEECH_FLOOR_DB / 10);
    this.slope = 1 - 1 / s.ratio;
    const size = 1 << Math.ceil(Math.log2(this.latency + this.step + 2));
    this.history = Array.from({ length: channels }, () => new Float64Array(size));
    this.historyMask = size - 1;
    const needSize = 1 << Math.ceil(Math.log2(this.ahead + 3));
    this.need = new Float64Array(needSize);
    this.needMask = needSize - 1;
  }

  /** The most it turned the sound down so far, dB. */
  get maxReductionDb(): number {
    return this.most;
  }

  /** Its mean reduction over every sample so far, dB. */
  get meanReductionDb(): number {
    return this.emitted > 0 ? (this.reducedSum * this.step) / this.emitted : 0;
  }

  /** The tracked speech level, dBFS of the mean square; null before the first speech block. */
  get levelDb(): number | null {
    return this.level > 0 ? 10 * Math.log10(this.level) : null;
  }

  /** The next samples (planar, every plane the same length); returns as many, `latency` behind. */
  process(planes: readonly ArrayLike<number>[]): Float32Array[] {
    const count = planes[0]?.length ?? 0;
    const channels = this.channels;
    const out = Array.from({ length: channels }, () => new Float32Array(count));
    const hMask = this.historyMask;
    const step = this.step;
    const latency = this.latency;
    for (let i = 0; i < count; i++) {
      const n = this.n;
      let square = 0;
      let peak = this.stepPeak;
      for (let c = 0; c < channels; c++) {
        const x = planes[c]![i]!;
        this.history[c]![n & hMask] = x;
        square += x * x;
        const a = x < 0 ? -x : x;
        if (a > peak) peak = a;
      }
      this.stepPeak = peak;
      this.blockSum += square / channels;
      this.n = n + 1;
      // The output sample n − latency, in its step's gain ramp.
      const k = n - latency;
      if (k >= 0) {
        const at = k & hMask;
        const f = (k % step) / step;
        const g = this.gainFrom + (this.gainTo - this.gainFrom) * f;
        if (g === 1) for (let c = 0; c < channels; c++) out[c]![i] = this.history[c]![at]!;
        else for (let c = 0; c < channels; c++) out[c]![i] = g * this.history[c]![at]!;
        this.emitted++;
      }
      if (++this.stepFill === step) this.closeStep();
      if (++this.blockFill === this.blockSamples) this.closeBlock();
      else if (this.level === 0 && this.blockFill % step === 0) this.provisional();
    }
    return out;
  }

  /**
   * A step of input has ended: its need goes into the look-ahead, and the gain of the step about
   * to play out (`ahead` steps back) is set. Its two ends take the largest need of the steps they
   * touch, and the need of the steps after it, ramped down by how far ahead they are (the attack):
   * every sample of a step is turned down at least as much as its own peak needs.
   */
  private closeStep(): void {
    const t = this.steps;
    this.need[t & this.needMask] = this.staticReduction(this.stepPeak);
    this.stepPeak = 0;
    this.stepFill = 0;
    this.steps = t + 1;
    const playing = t - this.ahead;
    if (playing < 0) return;
    // Boundary between steps `playing` and `playing + 1`: it ends the step being played.
    let target = 0;
    for (let m = 0; m <= this.ahead; m++) {
      const j = playing + m;
      const weight = m <= 1 ? 1 : 1 - (m - 1) / this.ahead;
      target = Math.max(target, weight * this.need[j & this.needMask]!);
    }
    this.reduction = target >= this.reduction ? target : this.reduction + this.releaseStep * (target - this.reduction);
    const end = this.reduction;
    if (end > this.most) this.most = end;
    this.reducedSum += end;
    this.gainFrom = this.gainTo;
    this.gainTo = end > 1e-6 ? Math.exp(-end / DB_PER_NEPER) : 1;
  }

  /** The static curve: how many dB a sample peak of `peak` is to be turned down (soft knee). */
  private staticReduction(peak: number): number {
    if (!(peak > this.kneeStartLin)) return 0;
    const knee = this.settings.kneeDb;
    const over = DB_PER_NEPER * Math.log(peak) - this.thresholdDb;
    if (2 * over >= knee) return this.slope * over;
    const k = over + knee / 2;
    return (this.slope * k * k) / (2 * knee);
  }

  /**
   * Before the first block has ended, the threshold follows the block so far, so the first peaks
   * of a recording are not let through whole (the master gain after it is set for the compressed
   * voice: a peak let through would stand out by as much as the compressor takes elsewhere).
   */
  private provisional(): void {
    const e = this.blockSum / this.blockFill;
    if (e > this.floor) this.setThreshold(e);
  }

  private setThreshold(level: number): void {
    this.thresholdDb = 10 * Math.log10(level) + this.settings.thresholdDb;
    this.kneeStartLin = 10 ** ((this.thresholdDb - this.settings.kneeDb / 2) / 20);
  }

  /** Moves the tracked level with the block just ended, and the threshold with it. */
  private closeBlock(): void {
    const e = this.blockSum / this.blockFill;
    this.blockSum = 0;
    this.blockFill = 0;
    if (e <= this.floor) return;
    if (this.level === 0) this.level = e;
    else if (e >= this.level * this.gate)
      // Up ten times faster than down: a tracker that started on another voice's bleed (or a
      // pause) finds the speaker within half a second.
      this.level += (e > this.level ? this.levelRiseAlpha : this.levelAlpha) * (e - this.level);
    else return;
    this.setThreshold(this.level);
  }
}
