/**
 * A look-ahead true-peak limiter: the last stage of the render's mastering. Pure and streaming.
 *
 * The peak detector looks at every sample and at the 4× oversampled signal between samples
 * (BS.1770-4 Annex 2's interpolator, the one the loudness meter and ffmpeg's `ebur128` use), so
 * what it holds under the ceiling is the true peak, not just the sample peak. The gain that
 * each sample needs is g = min(1, ceiling / peak); the limiter's gain is the minimum of those
 * over the next `lookahead` samples, averaged over the last `lookahead` samples: every value in
 * that average is at most the gain the current sample needs, so the ceiling holds exactly, and
 * the gain reaches its lowest point smoothly, ahead of the peak (no clicks). It then rises
 * again with the release time constant. Channels share one gain (the stereo image stays put).
 *
 * @module
 */
import { TRUE_PEAK_GAIN_BOUND, TRUE_PEAK_PHASES } from './loudness.ts';

/** Limiter settings. */
export interface LimiterOptions {
  /** The true-peak ceiling, dBTP. */
  ceilingDbtp: number;
  /** How far ahead the gain starts to go down, ms. Default 5. */
  lookaheadMs?: number;
  /** Time constant of the gain going back up, ms. Default 150. */
  releaseMs?: number;
}

const TAPS = 12;
const TAPS_FLAT = Float64Array.from(TRUE_PEAK_PHASES.flat());
/** The interpolated values computed when sample n arrives lie between samples n − 6 and n − 5. */
const INTERP_DELAY = 6;
/** Samples per stretch that is interpolated or not as a whole. */
const STRETCH = 64;

/**
 * @example
 * const limiter = new TruePeakLimiter(2, 48000, { ceilingDbtp: -1 });
 * const out = limiter.process([left, right]); // same length, delayed by limiter.latency samples
 * const tail = limiter.flush(); // the last limiter.latency samples
 */
export class TruePeakLimiter {
  readonly channels: number;
  /** Samples the output lags the input by. */
  readonly latency: number;
  private readonly ceiling: number;
  private readonly lookahead: number;
  private readonly releaseCoef: number;
  /** Ring of the last `size` inputs per channel. */
  private readonly history: Float64Array[];
  private readonly size: number;
  /** Ring of the needed gains, and the monotonic deque (indices) over them for the look-ahead minimum. */
  private readonly need: Float64Array;
  private readonly dequeIdx: Float64Array;
  private dqHead = 0;
  private dqTail = 0;
  /** Ring of the look-ahead minima, for the moving average. */
  private readonly minima: Float64Array;
  private minimaSum: number;
  private n = 0;
  private lastPeak = 0;
  /** Per channel: the last TAPS − 1 inputs (the interpolator's history). */
  private readonly tails: Float64Array[];
  private gain = 1;
  private lowest = 1;

  constructor(channels: number, sampleRate: number, options: LimiterOptions) {
    this.channels = channels;
    this.ceiling = 10 ** (options.ceilingDbtp / 20);
    this.lookahead = Math.max(1, Math.round(((options.lookaheadMs ?? 5) / 1000) * sampleRate));
    this.releaseCoef = 1 - Math.exp(-1 / (((options.releaseMs ?? 150) / 1000) * sampleRate));
    this.latency = INTERP_DELAY + this.lookahead - 1;
    this.size = 1 << Math.ceil(Math.log2(this.latency + TAPS + 2));
    this.history = Array.from({ length: channels }, () => new Float64Array(this.size));
    this.tails = Array.from({ length: channels }, () => new Float64Array(TAPS - 1));
    const ringSize = 1 << Math.ceil(Math.log2(this.lookahead + 2));
    this.need = new Float64Array(ringSize);
    this.dequeIdx = new Float64Array(ringSize);
    this.minima = new Float64Array(ringSize).fill(1);
    this.minimaSum = this.lookahead;
  }

  /** The lowest gain applied so far, dB (0 when the limiter never acted). */
  get maxReductionDb(): number {
    return this.lowest < 1 ? -20 * Math.log10(this.lowest) : 0;
  }

  /** The next input samples (planar); returns as many output samples, `latency` behind. */
  process(planes: readonly ArrayLike<number>[]): Float32Array[] {
    const count = planes[0]?.length ?? 0;
    const out = Array.from({ length: this.channels }, () => new Float32Array(count));
    const spans = this.spanPeaks(planes, count);
    for (let i = 0; i < count; i++) this.step(planes, i, spans[i]!, out);
    return out;
  }

  /** Feeds silence to push out the last `latency` samples. */
  flush(): Float32Array[] {
    const zeros = Array.from({ length: this.channels }, () => new Float32Array(this.latency));
    return this.process(zeros);
  }

  /**
   * For each new input sample n: the peak of the span between samples n − 6 and n − 5, both
   * samples and the 4× oversampled values between them. Stretches whose 12-tap windows stay
   * under ceiling / (the interpolator's largest gain) cannot reach the ceiling between samples
   * and are not interpolated (their sample peaks are exact enough there).
   */
  private spanPeaks(planes: readonly ArrayLike<number>[], count: number): Float64Array {
    const keep = TAPS - 1;
    const peaks = new Float64Array(count);
    const quiet = this.ceiling / TRUE_PEAK_GAIN_BOUND;
    for (let c = 0; c < this.channels; c++) {
      const x = planes[c]!;
      const tail = this.tails[c]!;
      const lin = new Float64Array(keep + count);
      lin.set(tail);
      for (let i = 0; i < count; i++) lin[keep + i] = x[i]!;
      for (let start = 0; start < count; start += STRETCH) {
        const end = Math.min(count, start + STRETCH);
        let windowMax = 0;
        for (let k = start; k < keep + end; k++) windowMax = Math.max(windowMax, Math.abs(lin[k]!));
        const hot = windowMax >= quiet;
        for (let i = start; i < end; i++) {
          const newest = keep + i;
          let peak = Math.max(
            peaks[i]!,
            Math.abs(lin[newest - INTERP_DELAY]!),
            Math.abs(lin[newest - INTERP_DELAY + 1]!),
          );
          if (hot)
            for (let p = 0; p < 4; p++) {
              const base = p * TAPS;
              let y = 0;
              for (let k = 0; k < TAPS; k++) y += TAPS_FLAT[base + k]! * lin[newest - k]!;
              peak = Math.max(peak, Math.abs(y));
            }
          peaks[i] = peak;
        }
      }
      tail.set(lin.subarray(count, count + keep));
    }
    return peaks;
  }

  private step(planes: readonly ArrayLike<number>[], i: number, peak: number, out: Float32Array[]): void {
    const n = this.n;
    const mask = this.size - 1;
    for (let c = 0; c < this.channels; c++) this.history[c]![n & mask] = planes[c]![i]!;
    const j = n - INTERP_DELAY;
    // Sample j needs its gain to hold both spans it touches.
    const worst = Math.max(peak, this.lastPeak);
    this.lastPeak = peak;
    const need = worst > this.ceiling ? this.ceiling / worst : 1;
    this.pushNeed(j, need);
    // Look-ahead minimum over need[k ‥ k + L − 1] is complete for k = j − L + 1.
    const k = j - this.lookahead + 1;
    while (this.dequeIdx[this.dqHead & (this.dequeIdx.length - 1)]! < k && this.dqHead < this.dqTail) this.dqHead++;
    const min = this.need[this.dequeIdx[this.dqHead & (this.dequeIdx.length - 1)]! & (this.need.length - 1)]!;
    const ring = this.minima.length - 1;
    this.minimaSum += min - this.minima[(k - this.lookahead) & ring]!;
    this.minima[k & ring] = min;
    const target = Math.min(1, this.minimaSum / this.lookahead);
    this.gain = target <= this.gain ? target : this.gain + this.releaseCoef * (target - this.gain);
    if (this.gain < this.lowest) this.lowest = this.gain;
    for (let c = 0; c < this.channels; c++) out[c]![i] = k >= 0 ? this.gain * this.history[c]![k & mask]! : 0;
    this.n++;
  }

  private pushNeed(j: number, value: number): void {
    const ring = this.need.length - 1;
    const dq = this.dequeIdx.length - 1;
    this.need[j & ring] = value;
    while (this.dqTail > this.dqHead && this.need[this.dequeIdx[(this.dqTail - 1) & dq]! & ring]! >= value)
      this.dqTail--;
    this.dequeIdx[this.dqTail & dq] = j;
    this.dqTail++;
  }
}

/** Steps per 100 ms block of {@link expectedLimiterFactors}' gain model. */
const MODEL_STEPS = 20;
/**
 * How far a speech block's true peak is taken to lie over its highest sample, dB, in
 * {@link expectedLimiterFactors}: chosen on the tuning voices of eval/loudness.ts (LibriSpeech
 * readers 1688 and 2414, where the limited mix then lands within 0.3 LU of the target).
 */
export const SPEECH_TRUE_PEAK_OVER_SAMPLE_DB = 1;

/**
 * What a {@link TruePeakLimiter} at `ceiling` (linear) is expected to leave of each block's
 * energy (a factor from 0 to 1 per block), from each block's highest sample alone, without
 * running it: where a block's peak (plus {@link SPEECH_TRUE_PEAK_OVER_SAMPLE_DB}) is over the
 * ceiling the gain falls to ceiling / peak from the block's start (the peak may come anywhere in
 * it, and the loudest part of a block is around its peak), and it comes back with the release
 * time constant over the blocks after. Used to set the master gain so that the limited mix meets
 * its target without a trial pass through the limiter; it errs by a few tenths of a LU where the
 * limiter takes little (after the compressors), more where it works hard.
 *
 * @example
 * const factors = expectedLimiterFactors(blockPeaks, 10 ** (-2.5 / 20), 0.1);
 * const limited = energies.map((e, b) => e * factors[b]);
 */
export function expectedLimiterFactors(
  blockPeaks: ArrayLike<number>,
  ceiling: number,
  blockSec: number,
  releaseMs = 150,
): Float64Array {
  const out = new Float64Array(blockPeaks.length);
  const back = 1 - Math.exp(-blockSec / MODEL_STEPS / (releaseMs / 1000));
  const over = 10 ** (SPEECH_TRUE_PEAK_OVER_SAMPLE_DB / 20);
  let gain = 1;
  for (let b = 0; b < blockPeaks.length; b++) {
    const peak = blockPeaks[b]! * over;
    if (peak > ceiling && ceiling / peak < gain) gain = ceiling / peak;
    let sum = 0;
    for (let k = 0; k < MODEL_STEPS; k++) {
      sum += gain * gain;
      gain += back * (1 - gain);
    }
    out[b] = sum / MODEL_STEPS;
  }
  return out;
}
