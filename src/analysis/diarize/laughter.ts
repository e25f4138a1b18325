/**
 * Laughter is not speech. A laugh is a train of "ha" syllables: the same vowel again and again
 * at a steady rhythm of about five a second (Provine 1996; Bachorowski, Smoski & Owren 2001,
 * bouts of ~200 ms calls). Speech moves from one phone to the next, so its syllables differ.
 * Silero takes a laugh for speech, and a diarizer that keeps it gives the laugher a turn where
 * the contract's speaker detection hears none (silence removal keeps laughter through its
 * energy analysis instead).
 *
 * {@link laughterDescriptor} finds a segment's level pulses and measures how far its spectrum
 * moves from one pulse to the next; {@link isLaughter} asks for at least three pulses at a
 * steady rhythm whose spectra barely move. Two pulses are not enough: two syllables of real
 * speech can be as alike as a laugh's.
 *
 * @module
 */
import { kaldiFbank, mfccFromFbank } from '../speech/fbank.ts';
import { frameLevelsDb } from './edges.ts';
import { asReader, type SampleInput } from '../signal/sample-reader.ts';

/** What {@link laughterDescriptor} measures on a segment. */
export interface LaughterDescriptor {
  /** Level pulses standing at least `pulseProminenceDb` over the dips on both sides. */
  pulses: number;
  /** Mean time from one pulse to the next, ms (NaN under two pulses). */
  periodMs: number;
  /** Standard deviation of those intervals over their mean (NaN under three pulses). */
  periodCv: number;
  /**
   * Mean distance between consecutive pulses' cepstra (c1–c12 of 30 mel bins, Kaldi's
   * lifter, averaged over ±30 ms around each pulse). Read speech: 30 and more over three or
   * more syllables; a repeated vowel much less. NaN under two pulses.
   */
  spectralStep: number;
}

/** Options of {@link isLaughter}. */
export interface LaughterOptions {
  /** How far a pulse must stand over the dips on both sides, dB. Default 6. */
  pulseProminenceDb?: number;
  /** Fewest pulses. Default 3. */
  minPulses?: number;
  /** Pulse period range, ms. Default [120, 350]. */
  periodMs?: readonly [number, number];
  /** Largest `periodCv`. Default 0.25. */
  maxPeriodCv?: number;
  /** Largest `spectralStep`. Default 20. */
  maxSpectralStep?: number;
}

/** Segments longer than this are not tested (a laugh is rarely longer; the test costs). */
export const LAUGHTER_MAX_MS = 4000;

const FRAME_MS = 10;
const CEPSTRA = 12;
/** Frames on each side of a pulse's peak whose cepstra are averaged. */
const PULSE_HALF_FRAMES = 3;

/**
 * Pulses and their spectral steps in `samples` (one segment of one channel).
 *
 * @example
 * const d = laughterDescriptor(mic.subarray(a, b), 16000);
 * console.log(d.pulses, d.periodMs, d.spectralStep);
 */
export function laughterDescriptor(
  samples: Float32Array,
  sampleRate: number,
  pulseProminenceDb = 6,
): LaughterDescriptor {
  const levels = frameLevelsDb(samples, sampleRate, FRAME_MS);
  const n = levels.length;
  const smooth = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    const a = Math.max(0, t - 1);
    const b = Math.min(n - 1, t + 1);
    let s = 0;
    for (let k = a; k <= b; k++) s += levels[k]!;
    smooth[t] = s / (b - a + 1);
  }
  const peaks: number[] = [];
  for (let t = 1; t < n - 1; t++) {
    const v = smooth[t]!;
    if (v < smooth[t - 1]! || v <= smooth[t + 1]!) continue;
    // The deepest dip on each side before the level climbs over this peak again.
    let left = v;
    for (let k = t - 1; k >= 0 && smooth[k]! <= v; k--) left = Math.min(left, smooth[k]!);
    let right = v;
    for (let k = t + 1; k < n && smooth[k]! <= v; k++) right = Math.min(right, smooth[k]!);
    if (v - Math.max(left, right) >= pulseProminenceDb) peaks.push(t);
  }
  const intervals = peaks.slice(1).map((p, i) => (p - peaks[i]!) * FRAME_MS);
  const periodMs = intervals.length > 0 ? intervals.reduce((a, b) => a + b, 0) / intervals.length : NaN;
  const periodCv =
    intervals.length > 1
      ? Math.sqrt(intervals.reduce((a, b) => a + (b - periodMs) ** 2, 0) / intervals.length) / periodMs
      : NaN;
  if (peaks.length < 2) return { pulses: peaks.length, periodMs, periodCv, spectralStep: NaN };

  const mfcc = mfccFromFbank(kaldiFbank(samples, { sampleFrequency: sampleRate, numMelBins: 30 }), CEPSTRA + 1);
  const dim = CEPSTRA + 1;
  const pulse = (t: number): Float64Array => {
    const v = new Float64Array(CEPSTRA);
    let count = 0;
    for (let k = Math.max(0, t - PULSE_HALF_FRAMES); k <= Math.min(mfcc.frames - 1, t + PULSE_HALF_FRAMES); k++) {
      count++;
      for (let j = 0; j < CEPSTRA; j++) v[j] = v[j]! + mfcc.data[k * dim + 1 + j]!;
    }
    for (let j = 0; j < CEPSTRA; j++) v[j] = v[j]! / Math.max(1, count);
    return v;
  };
  const spectra = peaks.map(pulse);
  let step = 0;
  for (let p = 1; p < spectra.length; p++) {
    let s = 0;
    for (let j = 0; j < CEPSTRA; j++) s += (spectra[p]![j]! - spectra[p - 1]![j]!) ** 2;
    step += Math.sqrt(s);
  }
  return { pulses: peaks.length, periodMs, periodCv, spectralStep: step / (spectra.length - 1) };
}

/**
 * True when the segment is a laugh: at least three level pulses at a steady rhythm of
 * 120–350 ms whose spectra barely move from one to the next.
 *
 * @example
 * const turns = segments.filter((g) => !isLaughter(mic.subarray(g.startMs * 16, g.endMs * 16), 16000));
 */
export function isLaughter(samples: Float32Array, sampleRate: number, options: LaughterOptions = {}): boolean {
  const d = laughterDescriptor(samples, sampleRate, options.pulseProminenceDb ?? 6);
  const [shortest, longest] = options.periodMs ?? [120, 350];
  return (
    d.pulses >= (options.minPulses ?? 3) &&
    d.periodMs >= shortest &&
    d.periodMs <= longest &&
    // Two pulses have one interval and no spread (when minPulses allows two).
    (Number.isNaN(d.periodCv) || d.periodCv <= (options.maxPeriodCv ?? 0.25)) &&
    d.spectralStep <= (options.maxSpectralStep ?? 20)
  );
}

/**
 * {@link isLaughter} on one segment of a signal; segments over {@link LAUGHTER_MAX_MS} are
 * speech.
 *
 * @example
 * const kept = segments.filter((g) => !isLaughterSegment(mic, 16000, g));
 */
export function isLaughterSegment(
  samples: SampleInput,
  sampleRate: number,
  segment: { startMs: number; endMs: number },
  options: LaughterOptions = {},
): boolean {
  if (segment.endMs - segment.startMs > LAUGHTER_MAX_MS) return false;
  const from = Math.max(0, Math.round((segment.startMs * sampleRate) / 1000));
  const to = Math.min(samples.length, Math.round((segment.endMs * sampleRate) / 1000));
  return to > from && isLaughter(asReader(samples).read(from, to), sampleRate, options);
}
