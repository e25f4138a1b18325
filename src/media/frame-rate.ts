/**
 * A video track's exact frame rate from its packets' timestamps. Containers store times in
 * ticks of a timescale (90000 in most MP4s, 600 in phones' MOVs, 1000 in Matroska), so 29.97 fps
 * is never written as 29.97: it is 3003 ticks of 90000 (exact), or 33 and 34 ms alternating
 * (rounded). The rate is the standard rate (30000/1001, 25, …) whose frame grid fits every
 * timestamp span to within one tick, else the fraction the ticks give. Pure: numbers in, a
 * fraction out.
 *
 * @module
 */
import type { FrameRateFraction } from '../contract/types.ts';

/** What {@link frameRateOfTimestamps} found. */
export interface DetectedFrameRate {
  rate: FrameRateFraction;
  /** Frame durations vary beyond the timescale's rounding (phones); `rate` is then the nearest whole standard rate to the average. */
  variable: boolean;
}

/** The rates cameras, phones and screen recorders write, as exact fractions. */
export const STANDARD_FRAME_RATES: readonly FrameRateFraction[] = [
  { num: 24000, den: 1001 },
  { num: 24, den: 1 },
  { num: 25, den: 1 },
  { num: 30000, den: 1001 },
  { num: 30, den: 1 },
  { num: 48000, den: 1001 },
  { num: 48, den: 1 },
  { num: 50, den: 1 },
  { num: 60000, den: 1001 },
  { num: 60, den: 1 },
  { num: 100, den: 1 },
  { num: 120000, den: 1001 },
  { num: 120, den: 1 },
  { num: 15, den: 1 },
  { num: 12, den: 1 },
  { num: 10, den: 1 },
];

/** Share of frame intervals that may stray (a dropped or doubled frame) before the rate counts as variable. */
const VARIABLE_SHARE = 0.05;
/** A VFR track's average snaps to a standard rate within this relative distance. */
const VARIABLE_SNAP = 0.05;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** `num/den` reduced. */
function reduced(num: number, den: number): FrameRateFraction {
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

const fpsOf = (r: FrameRateFraction): number => r.num / r.den;

/**
 * A frames-per-second number as the nearest standard rate within `relative`, else a fraction in
 * thousandths. `wholeOnly`: only whole rates (a phone's variable 29.85 fps average is its nominal 30).
 */
export function nearestFrameRate(fps: number, relative = VARIABLE_SNAP, wholeOnly = false): FrameRateFraction {
  let best: FrameRateFraction | null = null;
  for (const r of STANDARD_FRAME_RATES) {
    if (wholeOnly && r.den !== 1) continue;
    const off = Math.abs(fps - fpsOf(r)) / fpsOf(r);
    if (off <= relative && (best === null || off < Math.abs(fps - fpsOf(best)) / fpsOf(best))) best = r;
  }
  return best ?? reduced(Math.round(fps * 1000), 1000);
}

/**
 * The frame rate of a video track from its packets' presentation timestamps (seconds, any
 * order: B-frames come out of order) and the track's timescale (`timeResolution`: every
 * timestamp is a whole multiple of `1/timeResolution` s). Null with fewer than two distinct
 * timestamps.
 *
 * @example
 * const ts = Array.from({ length: 120 }, (_, i) => Math.round((i * 1001) / 30) / 1000); // 29.97 fps in ms
 * frameRateOfTimestamps(ts, 1000); // { rate: { num: 30000, den: 1001 }, variable: false }
 */
export function frameRateOfTimestamps(timestamps: readonly number[], timeResolution: number): DetectedFrameRate | null {
  const resolution = Number.isFinite(timeResolution) && timeResolution > 0 ? timeResolution : 1_000_000;
  const ticks = [...new Set(timestamps.filter(Number.isFinite).map((t) => Math.round(t * resolution)))].sort(
    (a, b) => a - b,
  );
  if (ticks.length < 2) return null;
  const deltas = ticks.slice(1).map((t, i) => t - ticks[i]!);
  const median = [...deltas].sort((a, b) => a - b)[Math.floor(deltas.length / 2)]!;
  // Frames in the span: a gap of two frame durations (a dropped frame) counts as two.
  const steps = deltas.map((d) => Math.max(1, Math.round(d / median)));
  const frames = steps.reduce((sum, k) => sum + k, 0);
  const span = ticks[ticks.length - 1]! - ticks[0]!;
  const mean = span / frames;
  // One tick of rounding either way is how a container writes a fractional duration (33/34 ms at 29.97).
  const tolerance = 1.01;
  const strays = deltas.filter((d, i) => steps[i] !== 1 || Math.abs(d - mean) > Math.max(tolerance, 0.01 * mean));
  const variable = strays.length > VARIABLE_SHARE * deltas.length;
  const average = (frames * resolution) / span;
  if (variable) return { rate: nearestFrameRate(average, VARIABLE_SNAP, true), variable };
  // The standard rate whose grid puts the span within a tick of the observed one (each end rounded once).
  let best: { rate: FrameRateFraction; off: number } | null = null;
  for (const r of STANDARD_FRAME_RATES) {
    const off = Math.abs(span - (frames * resolution * r.den) / r.num);
    if (off <= 2 * tolerance && (best === null || off < best.off)) best = { rate: r, off };
  }
  if (best) return { rate: best.rate, variable };
  // A rate of its own: whole ticks per frame give it exactly, else the average in thousandths.
  if (Number.isInteger(mean) && Number.isInteger(resolution)) return { rate: reduced(resolution, mean), variable };
  return { rate: reduced(Math.round(average * 1000), 1000), variable };
}
