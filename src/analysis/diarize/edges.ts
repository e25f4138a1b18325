/**
 * Speech edges at 10 ms: Silero decides on 32 ms frames and lags at both ends (its
 * probability rises after a word's onset and stays up for a frame or three after its end),
 * while a reference marks speech from the first audible sound to the last. Each segment's
 * start and end are moved, by at most `maxShiftMs`, to where the signal crosses the level
 * that separates speech from room noise: within `peakRangeDb` of the segment's loudest frame
 * and at least `floorMarginDb` above the recording's noise floor.
 *
 * @module
 */
import type { SpeechSegment } from '../vad.ts';

/** Options of {@link refineSpeechEdges}. */
export interface EdgeOptions {
  /** Largest move of an edge, ms. Default 160. */
  maxShiftMs?: number;
  /** Frames further than this below the segment's loudest are not speech. Default 35 dB. */
  peakRangeDb?: number;
  /** Frames less than this above the noise floor are not speech. Default 6 dB. */
  floorMarginDb?: number;
  /** Segments shorter than this after refinement are dropped, ms. Default 60. */
  minSpeechMs?: number;
  /**
   * A pause inside a segment at least this long (every frame below the speech level) splits
   * it, ms; 0 keeps segments whole. Default 250 (pauses shorter than the 0.25 s collar are
   * part of speech in the references). The VAD bridges shorter gaps than its own hangover.
   */
  splitPauseMs?: number;
}

/**
 * Level of each `frameMs` frame in dB (mean square; digital silence reads −100 dB). `frames`
 * defaults to the whole frames in the signal; a last frame cut short by its end is averaged
 * over what it has.
 */
export function frameLevelsDb(samples: Float32Array, sampleRate: number, frameMs = 10, frames?: number): Float64Array {
  const len = Math.round((sampleRate * frameMs) / 1000);
  const count = frames ?? Math.floor(samples.length / len);
  const out = new Float64Array(count);
  for (let t = 0; t < count; t++) {
    let s = 0;
    const from = t * len;
    const to = Math.min(samples.length, from + len);
    for (let i = from; i < to; i++) s += samples[i]! * samples[i]!;
    out[t] = 10 * Math.log10(s / Math.max(1, to - from) + 1e-10);
  }
  return out;
}

/** The noise floor: the 10th-percentile frame level, dB (digital silence ignored). */
export function noiseFloorDb(levels: ArrayLike<number>): number {
  const live = Array.from(levels).filter((v) => v > -99).sort((a, b) => a - b);
  return live.length === 0 ? -120 : live[Math.floor(live.length * 0.1)]!;
}

/**
 * Moves each segment's edges onto the speech/noise boundary of the signal.
 *
 * @param levels 10 ms frame levels of the signal the segments were found on ({@link frameLevelsDb})
 * @param allowed optional per-frame mask (same grid): frames that may be speech of this
 *   segment's owner (per-mic mode passes "louder than the neighbours' bleed")
 * @example
 * const levels = frameLevelsDb(mic, 16000);
 * refineSpeechEdges(speechSegments(probs), levels, noiseFloorDb(levels));
 */
export function refineSpeechEdges(
  segments: readonly SpeechSegment[],
  levels: Float64Array,
  floorDb: number,
  options: EdgeOptions = {},
  allowed?: Uint8Array,
): SpeechSegment[] {
  const frameMs = 10;
  const maxShift = Math.round((options.maxShiftMs ?? 160) / frameMs);
  const range = options.peakRangeDb ?? 35;
  const margin = options.floorMarginDb ?? 6;
  const minLen = Math.round((options.minSpeechMs ?? 60) / frameMs);
  const splitPause = Math.round((options.splitPauseMs ?? 250) / frameMs);
  const T = levels.length;
  const out: SpeechSegment[] = [];
  let prevEnd = 0;
  const sorted = [...segments].sort((a, b) => a.startMs - b.startMs);
  sorted.forEach((seg, i) => {
    let s = Math.max(0, Math.min(T, Math.round(seg.startMs / frameMs)));
    let e = Math.max(s, Math.min(T, Math.round(seg.endMs / frameMs)));
    if (e <= s) return;
    let peak = -Infinity;
    for (let t = s; t < e; t++) peak = Math.max(peak, levels[t]!);
    const thr = Math.max(peak - range, floorDb + margin);
    const on = (t: number): boolean => levels[t]! >= thr && (!allowed || allowed[t] === 1);
    const nextStart = i + 1 < sorted.length ? Math.round(sorted[i + 1]!.startMs / frameMs) : T;
    const s0 = s;
    const e0 = e;
    if (on(s)) while (s > prevEnd && s0 - s < maxShift && on(s - 1)) s--;
    else while (s < e && s - s0 < maxShift && !on(s)) s++;
    if (e - 1 >= s && on(e - 1)) while (e < nextStart && e - e0 < maxShift && on(e)) e++;
    else while (e > s && e0 - e < maxShift && !on(e - 1)) e--;
    if (e - s < minLen) return;
    const pieces: Array<[number, number]> = [];
    let from = s;
    let quiet = 0;
    for (let t = s; t < e; t++) {
      if (on(t)) {
        if (splitPause > 0 && quiet >= splitPause && t - quiet > from) {
          pieces.push([from, t - quiet]);
          from = t;
        }
        quiet = 0;
      } else quiet++;
    }
    pieces.push([from, e]);
    for (const [a, b] of pieces) {
      if (b - a < minLen) continue;
      const last = out[out.length - 1];
      if (last && a * frameMs <= last.endMs) last.endMs = Math.max(last.endMs, b * frameMs);
      else out.push({ startMs: a * frameMs, endMs: b * frameMs });
    }
    prevEnd = e;
  });
  return out;
}
