/**
 * Loudness as broadcasters and podcast hosts measure it: ITU-R BS.1770-4 / EBU R128 integrated
 * loudness (LUFS), EBU Tech 3342 loudness range (LU), short-term loudness over time, sample
 * peak and true peak (dBTP). Streaming: audio is pushed in blocks of any size and only the
 * per-100 ms energies are kept (about 600 KB for an hour), so an hour of audio never sits in
 * memory. Pure: numbers in, numbers out.
 *
 * Method, as in BS.1770-4 and libebur128:
 * - **K-weighting:** a high shelf (+4 dB above about 1.7 kHz) then the RLB high-pass (about
 *   38 Hz), two biquads whose coefficients come from the analogue prototypes by the bilinear
 *   transform at the signal's own sample rate (the 48 kHz table of the standard is one case).
 * - **Gating blocks:** 400 ms, every 100 ms (75 % overlap); a block's loudness is
 *   −0.691 + 10·log10 Σ G_c·mean(y_c²), with G = 1.0 for left, right (and mono).
 * - **Integrated:** blocks above −70 LUFS (absolute gate), then above the loudness of those
 *   minus 10 LU (relative gate); the power mean of what is left.
 * - **Loudness range:** short-term blocks (3 s, every 100 ms) above −70 LUFS and above their
 *   power mean minus 20 LU; the 95th minus the 10th percentile of their loudness.
 * - **True peak:** 4× oversampling through the 48-tap polyphase interpolator of BS.1770-4
 *   Annex 2 (in floating point, so without the Annex's 12.04 dB headroom attenuation).
 *
 * @module
 */

/** The loudness of a programme, as the job reports it; null where silence leaves nothing to measure. */
export interface LoudnessSummary {
  /** Integrated loudness, LUFS (BS.1770-4, gated); null when no block passes the −70 LUFS gate. */
  integratedLufs: number | null;
  /** Loudness range, LU (EBU Tech 3342); null when no 3 s block passes the gates. */
  lraLu: number | null;
  /** Highest short-term (3 s) loudness, LUFS; null when the audio is shorter than 3 s or silent. */
  maxShortTermLufs: number | null;
  /** Highest sample, dBFS; null for digital silence. */
  samplePeakDbfs: number | null;
  /** True peak (4× oversampled), dBTP; null for digital silence. */
  truePeakDbtp: number | null;
  /** Seconds measured. */
  durationSec: number;
}

/** Absolute gate of integrated loudness and loudness range, LUFS. */
export const ABSOLUTE_GATE_LUFS = -70;
/** Relative gate of integrated loudness, LU below the absolute-gated loudness. */
export const RELATIVE_GATE_LU = -10;
/** Relative gate of the loudness range, LU below the absolute-gated short-term loudness. */
export const LRA_RELATIVE_GATE_LU = -20;

/** Second-order section, y = b0·x + b1·x₁ + b2·x₂ − a1·y₁ − a2·y₂ (a0 = 1). */
interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

/**
 * The two K-weighting stages for `sampleRate` (libebur128's derivation of the BS.1770 filters:
 * the 48 kHz coefficients of the standard to within 1e-8, and the same filter at any rate).
 */
export function kWeightingFilters(sampleRate: number): { shelf: Biquad; highPass: Biquad } {
  // Stage 1: the high shelf modelling the head's acoustic effect.
  let f0 = 1681.974450955533;
  const gainDb = 3.999843853973347;
  let q = 0.7071752369554196;
  let k = Math.tan((Math.PI * f0) / sampleRate);
  const vh = 10 ** (gainDb / 20);
  const vb = vh ** 0.4996667741545416;
  let a0 = 1 + k / q + k * k;
  const shelf: Biquad = {
    b0: (vh + (vb * k) / q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q + k * k) / a0,
  };
  // Stage 2: the RLB high-pass.
  f0 = 38.13547087602444;
  q = 0.5003270373238773;
  k = Math.tan((Math.PI * f0) / sampleRate);
  a0 = 1 + k / q + k * k;
  const highPass: Biquad = { b0: 1, b1: -2, b2: 1, a1: (2 * (k * k - 1)) / a0, a2: (1 - k / q + k * k) / a0 };
  return { shelf, highPass };
}

/**
 * BS.1770-4 Annex 2, the 4× true-peak interpolator: phase p (row) gives the sample p/4 of a
 * period along; tap k multiplies x[n − k].
 */
export const TRUE_PEAK_PHASES: readonly (readonly number[])[] = [
  [
    0.001708984375, 0.010986328125, -0.0196533203125, 0.033203125, -0.0594482421875, 0.1373291015625, 0.97216796875,
    -0.102294921875, 0.047607421875, -0.026611328125, 0.014892578125, -0.00830078125,
  ],
  [
    -0.0291748046875, 0.029296875, -0.0517578125, 0.089111328125, -0.16650390625, 0.465087890625, 0.77978515625,
    -0.2003173828125, 0.1015625, -0.0582275390625, 0.0330810546875, -0.0189208984375,
  ],
  [
    -0.0189208984375, 0.0330810546875, -0.0582275390625, 0.1015625, -0.2003173828125, 0.77978515625, 0.465087890625,
    -0.16650390625, 0.089111328125, -0.0517578125, 0.029296875, -0.0291748046875,
  ],
  [
    -0.00830078125, 0.014892578125, -0.026611328125, 0.047607421875, -0.102294921875, 0.97216796875, 0.1373291015625,
    -0.0594482421875, 0.033203125, -0.0196533203125, 0.010986328125, 0.001708984375,
  ],
];
const TAPS = 12;
/** Taps flattened phase-major, for the inner loop. */
const TRUE_PEAK_TAPS = Float64Array.from(TRUE_PEAK_PHASES.flat());
/** The most any phase can amplify: Σ|h_p[k]|. A stretch whose samples stay under truePeak / this cannot raise it. */
export const TRUE_PEAK_GAIN_BOUND = Math.max(
  ...TRUE_PEAK_PHASES.map((phase) => phase.reduce((s, h) => s + Math.abs(h), 0)),
);
/** Samples per true-peak stretch that is skipped when it cannot raise the peak. */
const TRUE_PEAK_STRETCH = 256;

/** Channel weights G_c of BS.1770 for mono and stereo (left, right). */
const CHANNEL_WEIGHTS = [1, 1] as const;

/** Loudness in LUFS of a mean weighted square (−Infinity for 0). */
export function energyToLufs(energy: number): number {
  return energy > 0 ? -0.691 + 10 * Math.log10(energy) : -Infinity;
}

/** The mean weighted square of a loudness in LUFS. */
export function lufsToEnergy(lufs: number): number {
  return 10 ** ((lufs + 0.691) / 10);
}

/** A growable list of float64 values (block energies). */
class EnergyList {
  private data = new Float64Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
  get values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * The BS.1770 gated power mean of block energies: blocks above the absolute gate, then those
 * above (the mean of those + `relativeLu`). Returns the gated blocks' mean energy and the
 * threshold, or null when no block passes the absolute gate.
 */
function gate(energies: Float64Array, relativeLu: number): { threshold: number; mean: number; count: number } | null {
  const absolute = lufsToEnergy(ABSOLUTE_GATE_LUFS);
  let sum = 0;
  let count = 0;
  for (const e of energies)
    if (e > absolute) {
      sum += e;
      count++;
    }
  if (count === 0) return null;
  const threshold = Math.max(absolute, (sum / count) * 10 ** (relativeLu / 10));
  sum = 0;
  count = 0;
  for (const e of energies)
    if (e > threshold) {
      sum += e;
      count++;
    }
  return { threshold, mean: count > 0 ? sum / count : 0, count };
}

/**
 * The gated loudness (LUFS) of 400 ms block energies (mean weighted squares, channels summed):
 * the absolute gate at −70 LUFS, then `relativeLu` below the absolute-gated mean. −Infinity
 * when no block passes. Integrated loudness is `gatedLoudness(blocks)`; the levelling measures
 * one speaker's speech with it.
 */
export function gatedLoudness(energies: Float64Array, relativeLu = RELATIVE_GATE_LU): number {
  const gated = gate(energies, relativeLu);
  return gated && gated.count > 0 ? energyToLufs(gated.mean) : -Infinity;
}

/**
 * A streaming BS.1770-4 / EBU R128 loudness meter over one mono or stereo programme.
 *
 * @example
 * const meter = new LoudnessMeter(48000, 2);
 * for await (const [left, right] of chunks) meter.push([left, right]);
 * meter.integratedLufs; // e.g. -16.2
 * meter.summary(); // { integratedLufs, lraLu, truePeakDbtp, … } for the job
 */
export class LoudnessMeter {
  readonly sampleRate: number;
  readonly channels: number;
  private readonly shelf: Biquad;
  private readonly highPass: Biquad;
  /** Per channel: shelf x₁, x₂, y₁, y₂, then high-pass y₁, y₂ (its x is the shelf's y). */
  private readonly state: Float64Array[];
  /** Weighted sum of squares of the 100 ms segment being filled. */
  private segmentSum = 0;
  private segmentFilled = 0;
  private segmentIndex = 0;
  private segmentLength: number;
  /** The last 30 segments' sums and lengths (a ring), for the 400 ms and 3 s blocks. */
  private readonly recentSums = new Float64Array(30);
  private readonly recentLengths = new Float64Array(30);
  private readonly momentary = new EnergyList();
  private readonly shortTerm = new EnergyList();
  private frames = 0;
  private peak = 0;
  private oversampledPeak = 0;
  /** Per channel: the last TAPS − 1 input samples, then room for one stretch (the true-peak FIR's window). */
  private readonly history: Float64Array[];
  private readonly measureTruePeak: boolean;

  /**
   * @param sampleRate Hz, 8000 or more
   * @param channels 1 (mono) or 2 (stereo: left, right)
   * @param options.truePeak false to skip the 4× oversampling (sample peak still measured)
   */
  constructor(sampleRate: number, channels: number, options: { truePeak?: boolean } = {}) {
    if (!Number.isFinite(sampleRate) || sampleRate < 8000)
      throw new RangeError(`LoudnessMeter: sampleRate must be 8000 Hz or more (got ${sampleRate})`);
    if (channels !== 1 && channels !== 2)
      throw new RangeError(`LoudnessMeter: channels must be 1 or 2 (got ${channels})`);
    this.sampleRate = sampleRate;
    this.channels = channels;
    ({ shelf: this.shelf, highPass: this.highPass } = kWeightingFilters(sampleRate));
    this.state = Array.from({ length: channels }, () => new Float64Array(6));
    this.history = Array.from({ length: channels }, () => new Float64Array(TAPS - 1 + TRUE_PEAK_STRETCH));
    this.measureTruePeak = options.truePeak ?? true;
    this.segmentLength = this.segmentEnd(0);
  }

  /**
   * The next samples, planar: one array per channel, all the same length (a mono meter fed
   * stereo takes the first channel only if asked to: pass exactly `channels` arrays).
   */
  push(planes: readonly ArrayLike<number>[]): void {
    if (planes.length !== this.channels)
      throw new RangeError(`LoudnessMeter.push: ${planes.length} channels for a ${this.channels}-channel meter`);
    const n = planes[0]!.length;
    for (const plane of planes)
      if (plane.length !== n) throw new RangeError('LoudnessMeter.push: the channels differ in length');
    let at = 0;
    while (at < n) {
      const span = Math.min(n - at, this.segmentLength - this.segmentFilled);
      for (let c = 0; c < this.channels; c++)
        this.segmentSum += CHANNEL_WEIGHTS[c]! * this.filterSpan(planes[c]!, at, at + span, this.state[c]!);
      this.segmentFilled += span;
      at += span;
      if (this.segmentFilled === this.segmentLength) this.closeSegment();
    }
    for (let c = 0; c < this.channels; c++) this.trackPeaks(planes[c]!, this.history[c]!);
    this.frames += n;
  }

  /** Seconds pushed so far. */
  get durationSec(): number {
    return this.frames / this.sampleRate;
  }

  /** Integrated loudness, LUFS; −Infinity when no 400 ms block passes the −70 LUFS gate. */
  get integratedLufs(): number {
    const gated = gate(this.momentary.values, RELATIVE_GATE_LU);
    return gated && gated.count > 0 ? energyToLufs(gated.mean) : -Infinity;
  }

  /** Loudness range, LU (EBU Tech 3342); 0 when fewer than two 3 s blocks pass the gates. */
  get loudnessRangeLu(): number {
    const energies = this.shortTerm.values;
    const gated = gate(energies, LRA_RELATIVE_GATE_LU);
    if (!gated) return 0;
    const kept = energies.filter((e) => e > gated.threshold).sort();
    if (kept.length < 2) return 0;
    // Nearest rank, as libebur128 does.
    const low = kept[Math.floor((kept.length - 1) * 0.1 + 0.5)]!;
    const high = kept[Math.floor((kept.length - 1) * 0.95 + 0.5)]!;
    return energyToLufs(high) - energyToLufs(low);
  }

  /**
   * Short-term loudness over time, LUFS, 10 values a second: value i is the loudness of the
   * 3 s ending at (i + 30) × 100 ms (empty until 3 s have been pushed).
   */
  shortTermLufs(): Float32Array {
    return Float32Array.from(this.shortTerm.values, energyToLufs);
  }

  /** Momentary loudness over time, LUFS, 10 values a second: value i covers the 400 ms ending at (i + 4) × 100 ms. */
  momentaryLufs(): Float32Array {
    return Float32Array.from(this.momentary.values, energyToLufs);
  }

  /** Highest absolute sample value (linear, 1 = full scale). */
  get samplePeak(): number {
    return this.peak;
  }

  /** Highest absolute value of the 4× oversampled signal, never below the sample peak (linear). */
  get truePeak(): number {
    return Math.max(this.peak, this.oversampledPeak);
  }

  /** Everything the job reports, in its units, finite or null. */
  summary(): LoudnessSummary {
    const finite = (x: number): number | null => (Number.isFinite(x) ? Math.round(x * 100) / 100 : null);
    const shortTerm = this.shortTerm.values;
    const lra = gate(shortTerm, LRA_RELATIVE_GATE_LU) ? this.loudnessRangeLu : null;
    return {
      integratedLufs: finite(this.integratedLufs),
      lraLu: lra === null ? null : finite(lra),
      maxShortTermLufs:
        shortTerm.length > 0 ? finite(energyToLufs(shortTerm.reduce((a, b) => Math.max(a, b), 0))) : null,
      samplePeakDbfs: finite(20 * Math.log10(this.samplePeak)),
      truePeakDbtp: this.measureTruePeak ? finite(20 * Math.log10(this.truePeak)) : null,
      durationSec: Math.round(this.durationSec * 1000) / 1000,
    };
  }

  /** End (exclusive, in samples of its own) of segment k: segments are 100 ms, rounded so they add up exactly. */
  private segmentEnd(k: number): number {
    return Math.round(((k + 1) * this.sampleRate) / 10) - Math.round((k * this.sampleRate) / 10);
  }

  /** K-weights samples [from, to) through the channel's filter state; returns the sum of squares. */
  private filterSpan(x: ArrayLike<number>, from: number, to: number, s: Float64Array): number {
    const { b0, b1, b2, a1, a2 } = this.shelf;
    const h = this.highPass;
    let x1 = s[0]!;
    let x2 = s[1]!;
    let y1 = s[2]!;
    let y2 = s[3]!;
    let z1 = s[4]!;
    let z2 = s[5]!;
    let sum = 0;
    for (let i = from; i < to; i++) {
      const v = x[i]!;
      const y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      // The high-pass's input is the shelf's output: its x₁, x₂ are y₁, y₂.
      const z = y - 2 * y1 + y2 - h.a1 * z1 - h.a2 * z2;
      x2 = x1;
      x1 = v;
      y2 = y1;
      y1 = y;
      z2 = z1;
      z1 = z;
      sum += z * z;
    }
    // Flush what silence decays towards, before it reaches the slow subnormal range.
    const tiny = (u: number): number => (Math.abs(u) < 1e-30 ? 0 : u);
    s[0] = x1;
    s[1] = x2;
    s[2] = tiny(y1);
    s[3] = tiny(y2);
    s[4] = tiny(z1);
    s[5] = tiny(z2);
    return sum;
  }

  /** A 100 ms segment is complete: record the 400 ms and 3 s blocks that end with it. */
  private closeSegment(): void {
    const k = this.segmentIndex;
    this.recentSums[k % 30] = this.segmentSum;
    this.recentLengths[k % 30] = this.segmentLength;
    const blockEnergy = (segments: number): number => {
      let sum = 0;
      let length = 0;
      for (let j = k - segments + 1; j <= k; j++) {
        sum += this.recentSums[j % 30]!;
        length += this.recentLengths[j % 30]!;
      }
      return sum / length;
    };
    if (k >= 3) this.momentary.push(blockEnergy(4));
    if (k >= 29) this.shortTerm.push(blockEnergy(30));
    this.segmentIndex = k + 1;
    this.segmentSum = 0;
    this.segmentFilled = 0;
    this.segmentLength = this.segmentEnd(k + 1);
  }

  /** Sample and true peak of one channel's next samples; `history` keeps the FIR's last TAPS − 1 inputs. */
  private trackPeaks(x: ArrayLike<number>, history: Float64Array): void {
    const keep = TAPS - 1;
    for (let start = 0; start < x.length; start += TRUE_PEAK_STRETCH) {
      const end = Math.min(x.length, start + TRUE_PEAK_STRETCH);
      const n = end - start;
      // history[0..keep) are the previous inputs, history[keep..keep + n) this stretch.
      let stretchMax = 0;
      for (let i = 0; i < n; i++) {
        const v = x[start + i]!;
        history[keep + i] = v;
        const a = Math.abs(v);
        if (a > stretchMax) stretchMax = a;
      }
      if (stretchMax > this.peak) this.peak = stretchMax;
      if (this.measureTruePeak) {
        let windowMax = stretchMax;
        for (let i = 0; i < keep; i++) windowMax = Math.max(windowMax, Math.abs(history[i]!));
        // Only a stretch that could raise the true peak is interpolated (the result is the same).
        if (windowMax * TRUE_PEAK_GAIN_BOUND > this.oversampledPeak) this.interpolate(history, n);
      }
      history.copyWithin(0, n, n + keep);
    }
  }

  /** The oversampled values of the stretch in history[TAPS − 1 ..][0, n), raising the true peak. */
  private interpolate(history: Float64Array, n: number): void {
    const taps = TRUE_PEAK_TAPS;
    let best = this.oversampledPeak;
    for (let i = 0; i < n; i++) {
      const newest = i + TAPS - 1;
      for (let p = 0; p < 4; p++) {
        const base = p * TAPS;
        let y = 0;
        for (let k = 0; k < TAPS; k++) y += taps[base + k]! * history[newest - k]!;
        const a = Math.abs(y);
        if (a > best) best = a;
      }
    }
    this.oversampledPeak = best;
  }
}

/**
 * The loudness of one whole signal (a convenience over {@link LoudnessMeter} for audio already
 * in memory).
 *
 * @example
 * measureLoudness([left, right], 48000).integratedLufs; // −23 for Tech 3341 case 1
 */
export function measureLoudness(planes: readonly ArrayLike<number>[], sampleRate: number): LoudnessSummary {
  const meter = new LoudnessMeter(sampleRate, planes.length);
  meter.push(planes);
  return meter.summary();
}
