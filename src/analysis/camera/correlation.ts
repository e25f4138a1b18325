/**
 * How strongly a motion series follows a speaker's speech: Pearson correlation with a lag
 * search, scored as a z-score against a null distribution of circular shifts.
 *
 * @module
 */
import type { Turn } from '../../contract/types.ts';

/** Tuning of {@link speechResponse}. */
export interface ResponseOptions {
  /** Lags searched, from -maxLagMs to +maxLagMs. Default 1000 ms. */
  maxLagMs?: number;
  /** Lag step. Default 100 ms. */
  lagStepMs?: number;
  /** Number of circular shifts in the null distribution. Default 40. */
  nullShifts?: number;
}

/** Result of {@link speechResponse}. */
export interface SpeechResponse {
  /** (best correlation − mean of the null) / sd of the null; 0 when it cannot be computed. */
  z: number;
  /** Best correlation over the lag search. */
  r: number;
  /**
   * Best lag in ms: motion at reference time t follows speech at t − lag, so a positive lag
   * means the picture runs late against the turns (a sync error of that size).
   */
  lagMs: number;
}

/**
 * Merged, sorted speech intervals of one speaker (overlapping turns joined), for fast lookup.
 */
export function speakerIntervals(turns: readonly Turn[], speaker: string): Float64Array {
  const own = turns.filter((x) => x.speaker === speaker && x.endMs > x.startMs).sort((a, b) => a.startMs - b.startMs);
  const out: number[] = [];
  for (const turn of own) {
    const last = out.length - 1;
    if (last > 0 && turn.startMs <= out[last]!) out[last] = Math.max(out[last]!, turn.endMs);
    else out.push(turn.startMs, turn.endMs);
  }
  return Float64Array.from(out);
}

/** Total speech of a speaker in ms, overlapping turns counted once. */
export function talkTimeMs(turns: readonly Turn[], speaker: string): number {
  const iv = speakerIntervals(turns, speaker);
  let sum = 0;
  for (let i = 0; i < iv.length; i += 2) sum += iv[i + 1]! - iv[i]!;
  return sum;
}

/** 1 where `times[i]` falls inside one of the intervals (from {@link speakerIntervals}), else 0. */
export function activityAt(intervals: Float64Array, times: ArrayLike<number>): Float32Array {
  const out = new Float32Array(times.length);
  const n = intervals.length / 2;
  for (let i = 0; i < times.length; i++) {
    const x = times[i]!;
    // Last interval starting at or before x.
    let lo = 0;
    let hi = n - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (intervals[2 * mid]! <= x) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    out[i] = found >= 0 && x < intervals[2 * found + 1]! ? 1 : 0;
  }
  return out;
}

/** Centres and scales a series to mean 0, sd 1 in place; returns false if it is constant. */
export function standardize(x: Float32Array): boolean {
  const n = x.length;
  if (n === 0) return false;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i]!;
  mean /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (x[i]! - mean) ** 2;
  const sd = Math.sqrt(v / n);
  if (!(sd > 1e-9)) return false;
  for (let i = 0; i < n; i++) x[i] = (x[i]! - mean) / sd;
  return true;
}

/**
 * Speech activity of one speaker at every lag of the search, standardized, ready for
 * {@link speechResponse}. `null` entries are lags where the speaker never (or always) speaks
 * within the samples.
 */
export function laggedActivity(
  intervals: Float64Array,
  times: ArrayLike<number>,
  options: ResponseOptions = {},
): { lagsMs: number[]; series: Array<Float32Array | null> } {
  const maxLag = options.maxLagMs ?? 1000;
  const step = options.lagStepMs ?? 100;
  const lagsMs: number[] = [];
  for (let lag = -maxLag; lag <= maxLag + 1e-9; lag += step) lagsMs.push(Math.round(lag));
  const shifted = new Float64Array(times.length);
  const series = lagsMs.map((lag) => {
    for (let i = 0; i < times.length; i++) shifted[i] = times[i]! - lag;
    const a = activityAt(intervals, shifted);
    return standardize(a) ? a : null;
  });
  return { lagsMs, series };
}

/**
 * Scores how well a standardized motion series follows a speaker's lagged activity.
 *
 * The null distribution circularly shifts the activity by 10 %…90 % of the series (keeping the
 * rhythm of speech but breaking its timing) and takes the best lag there too, so the lag
 * search's own optimism is in the null as well.
 */
export function speechResponse(
  motion: Float32Array,
  activity: { lagsMs: number[]; series: Array<Float32Array | null> },
  options: ResponseOptions = {},
): SpeechResponse {
  const n = motion.length;
  const shifts = options.nullShifts ?? 40;
  let best = -Infinity;
  let bestLag = 0;
  activity.series.forEach((a, k) => {
    if (!a) return;
    const r = dotShifted(motion, a, 0) / n;
    if (r > best) {
      best = r;
      bestLag = activity.lagsMs[k]!;
    }
  });
  if (!Number.isFinite(best) || n < 8) return { z: 0, r: 0, lagMs: 0 };
  const nulls: number[] = [];
  for (let j = 0; j < shifts; j++) {
    const k = Math.round(n * (0.1 + (0.8 * j) / Math.max(1, shifts - 1)));
    let m = -Infinity;
    for (const a of activity.series) if (a) m = Math.max(m, dotShifted(motion, a, k) / n);
    nulls.push(m);
  }
  const mean = nulls.reduce((s, x) => s + x, 0) / nulls.length;
  const sd = Math.sqrt(nulls.reduce((s, x) => s + (x - mean) ** 2, 0) / nulls.length);
  const z = sd > 1e-9 ? (best - mean) / sd : 0;
  return { z, r: best, lagMs: bestLag };
}

/** Σ m[i]·a[(i + k) mod n]. */
function dotShifted(m: Float32Array, a: Float32Array, k: number): number {
  const n = m.length;
  let s = 0;
  const split = n - k;
  for (let i = 0; i < split; i++) s += m[i]! * a[i + k]!;
  for (let i = split; i < n; i++) s += m[i]! * a[i - split]!;
  return s;
}
