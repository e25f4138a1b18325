/**
 * Speech edges at 10 ms: Silero decides on 32 ms frames and lags at both ends (its
 * probability rises after a word's onset and stays up for a frame or three after its end),
 * while a reference marks speech from the first audible sound to the last. Each segment's
 * start and end are moved, by at most `maxShiftMs`, to where the signal crosses the level
 * that separates speech from room noise: within `peakRangeDb` of the segment's loudest frame
 * and at least `floorMarginDb` above the noise (the recording's floor, or the noise just
 * outside that edge when it is louder). Moving outward, an edge crosses pauses shorter than
 * `edgePauseMs` (a soft syllable the VAD left out), but not into a loud burst beyond one.
 * Levels are measured above 80 Hz.
 *
 * @module
 */
import { LOW_CUT_HZ, lowCutCoefficients } from '../signal/signal-filter.ts';
import type { SpeechSegment } from '../speech/vad.ts';

/** Options of {@link refineSpeechEdges}. */
export interface EdgeOptions {
  /** Largest move of an edge, ms. Default 500: Silero can lag a quiet onset by 300 ms and more. */
  maxShiftMs?: number;
  /**
   * An edge moving outward crosses pauses shorter than this (frames under the speech level),
   * ms, and stops at the first longer one: Silero leaves out a soft syllable or murmur a
   * short pause before a word or after it, which the references count (one speaker's
   * pauses under 250 ms are speech). 0 stops at the first quiet frame. Default 250.
   */
  edgePauseMs?: number;
  /**
   * Beyond such a pause, an edge stops at a frame less than this far under the segment's
   * loudest, dB: the VAD misses quiet speech, not loud, so a loud burst it rejected next to
   * speech is laughter, a knock or a cough. 0 takes any level. Default 10.
   */
  rejectedLoudDb?: number;
  /**
   * When a segment's first (or last) frame is under the speech level, its edge first moves
   * inward to the speech and then still reaches outward from there across pauses shorter than
   * `edgePauseMs`: the VAD often starts on the pause between a soft syllable and the word it
   * leads into, and ends on the pause before a soft last one. false only moves such an edge
   * inward. Default false; per-mic passes true (measured in decision 003, session 12).
   */
  reachPastQuietEdge?: boolean;
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
  /**
   * The floor an edge is held to is the larger of the recording's and the noise next to it:
   * the 20th-percentile level of the frames outside every segment within this many ms before
   * the start (for the start) or after the end (for the end). A voice recorded with its own
   * room tone, or a mic that picks up a fan only while its owner leans in, raises the floor
   * only there. 0 uses the recording's floor alone. Default 500.
   */
  localFloorMs?: number;
  /**
   * Pauses between refined segments shorter than this are bridged, ms (the references'
   * convention: one speaker's pauses under 250 ms are speech, as NIST bridges under 0.3 s).
   * Default 0: the caller passes the segments of one speaker to bridge them.
   */
  bridgeMs?: number;
}

/**
 * Level of each `frameMs` frame in dB: mean square above `lowCutHz` (signal-filter.ts, `lowCut`; 0 measures
 * the whole band), digital silence reading −100 dB. `frames` defaults to the whole frames in
 * the signal; a last frame cut short by its end is averaged over what it has.
 */
export function frameLevelsDb(
  input: Float32Array,
  sampleRate: number,
  frameMs = 10,
  frames?: number,
  lowCutHz = LOW_CUT_HZ,
): Float64Array {
  const len = Math.round((sampleRate * frameMs) / 1000);
  const count = frames ?? Math.floor(input.length / len);
  const out = new Float64Array(count);
  // The low cut is applied as the samples are read (lowCut's biquad, its output rounded to
  // 32 bits as lowCut stores it): an hour of audio is not copied to be measured.
  const { norm, a1, a2 } = lowCutCoefficients(sampleRate, lowCutHz);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let t = 0; t < count; t++) {
    let s = 0;
    const from = t * len;
    const to = Math.min(input.length, from + len);
    if (lowCutHz > 0) {
      for (let i = from; i < to; i++) {
        const x = input[i]!;
        const y = norm * (x - 2 * x1 + x2) - a1 * y1 - a2 * y2;
        const stored = Math.fround(y);
        s += stored * stored;
        x2 = x1;
        x1 = x;
        y2 = y1;
        y1 = y;
      }
    } else for (let i = from; i < to; i++) s += input[i]! * input[i]!;
    out[t] = 10 * Math.log10(s / Math.max(1, to - from) + 1e-10);
  }
  return out;
}

/**
 * {@link frameLevelsDb} of a signal handed over in consecutive blocks (no low cut), so a long
 * signal need never be held whole: the same levels, to the bit, as on the joined signal.
 *
 * @example
 * const meter = new FrameLevelMeter(16000, 10);
 * for (const block of blocks) meter.push(block);
 * const levels = meter.levels(); // = frameLevelsDb(joined, 16000, 10, undefined, 0)
 */
export class FrameLevelMeter {
  private readonly len: number;
  private sums: Float64Array;
  /** Samples pushed so far. */
  private pushed = 0;

  /** @param frames as in {@link frameLevelsDb}; by default the whole frames of what was pushed */
  constructor(
    sampleRate: number,
    frameMs: number,
    private readonly frames?: number,
  ) {
    this.len = Math.round((sampleRate * frameMs) / 1000);
    this.sums = new Float64Array(frames ?? 1024);
  }

  /** Adds the next samples of the signal. */
  push(block: Float32Array): void {
    for (let i = 0; i < block.length;) {
      const t = Math.floor(this.pushed / this.len);
      const to = Math.min(block.length, i + (t + 1) * this.len - this.pushed);
      if (t >= this.sums.length) {
        if (this.frames !== undefined) return; // past the frames asked for
        const grown = new Float64Array(this.sums.length * 2);
        grown.set(this.sums);
        this.sums = grown;
      }
      let s = this.sums[t]!;
      for (let k = i; k < to; k++) s += block[k]! * block[k]!;
      this.sums[t] = s;
      this.pushed += to - i;
      i = to;
    }
  }

  /** The level of each frame, dB, as {@link frameLevelsDb} gives it for the pushed signal. */
  levels(): Float64Array {
    const count = this.frames ?? Math.floor(this.pushed / this.len);
    const out = new Float64Array(count);
    for (let t = 0; t < count; t++) {
      const n = Math.min(this.len, Math.max(0, this.pushed - t * this.len));
      out[t] = 10 * Math.log10((t < this.sums.length ? this.sums[t]! : 0) / Math.max(1, n) + 1e-10);
    }
    return out;
  }
}

/** The noise floor: the 10th-percentile frame level, dB (digital silence ignored). */
export function noiseFloorDb(levels: ArrayLike<number>): number {
  // A typed array sorts numbers as numbers, without a comparator call per step.
  const live = Float64Array.from(levels)
    .filter((v) => v > -99)
    .sort();
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
 *
 * Over 80 lines on purpose: a hot per-segment loop whose edge moves share the segment's floor,
 * peak and masks; split up, each step would take all of them as arguments.
 */
export function refineSpeechEdges(
  segments: readonly SpeechSegment[],
  levels: Float64Array,
  floorDb: number,
  options: EdgeOptions = {},
  allowed?: Uint8Array,
): SpeechSegment[] {
  const frameMs = 10;
  const maxShift = Math.round((options.maxShiftMs ?? 500) / frameMs);
  const range = options.peakRangeDb ?? 35;
  const margin = options.floorMarginDb ?? 6;
  const minLen = Math.round((options.minSpeechMs ?? 60) / frameMs);
  const splitPause = Math.round((options.splitPauseMs ?? 250) / frameMs);
  const edgePause = Math.round((options.edgePauseMs ?? 250) / frameMs);
  const rejectedLoud = options.rejectedLoudDb ?? 10;
  const reachPastQuiet = options.reachPastQuietEdge ?? false;
  const T = levels.length;
  const out: SpeechSegment[] = [];
  let prevEnd = 0;
  const sorted = [...segments].sort((a, b) => a.startMs - b.startMs);
  const inSegment = new Uint8Array(T);
  for (const g of sorted)
    inSegment.fill(1, Math.max(0, Math.round(g.startMs / frameMs)), Math.min(T, Math.round(g.endMs / frameMs)));
  const localWindow = Math.round((options.localFloorMs ?? 500) / frameMs);
  /** 20th-percentile level of the non-speech frames in [from, to), or −∞ with fewer than 10. */
  const nearbyNoise = (from: number, to: number): number => {
    const quiet: number[] = [];
    for (let t = Math.max(0, from); t < Math.min(T, to); t++)
      if (!inSegment[t] && levels[t]! > -99) quiet.push(levels[t]!);
    if (quiet.length < 10) return -Infinity;
    quiet.sort((a, b) => a - b);
    return quiet[Math.floor(0.2 * (quiet.length - 1))]!;
  };
  sorted.forEach((seg, i) => {
    let s = Math.max(0, Math.min(T, Math.round(seg.startMs / frameMs)));
    let e = Math.max(s, Math.min(T, Math.round(seg.endMs / frameMs)));
    if (e <= s) return;
    let peak = -Infinity;
    for (let t = s; t < e; t++) peak = Math.max(peak, levels[t]!);
    // Noise is far under the voice: a "floor" within 20 dB of the peak is speech the VAD
    // left out of this segment (or someone else's), and the recording's floor holds alone.
    const noiseNear = (from: number, to: number): number => {
      const level = nearbyNoise(from, to);
      return level < peak - 20 ? level : -Infinity;
    };
    const before = noiseNear(s - localWindow, s);
    const after = noiseNear(e, e + localWindow);
    const thrS = Math.max(peak - range, Math.max(floorDb, before) + margin);
    const thrE = Math.max(peak - range, Math.max(floorDb, after) + margin);
    // Inside the segment (pause splitting) the lower of the two holds.
    const thr = Math.min(thrS, thrE);
    const onAt = (t: number, level: number): boolean => levels[t]! >= level && (!allowed || allowed[t] === 1);
    const on = (t: number): boolean => onAt(t, thr);
    const onS = (t: number): boolean => onAt(t, thrS);
    const onE = (t: number): boolean => onAt(t, thrE);
    const nextStart = i + 1 < sorted.length ? Math.round(sorted[i + 1]!.startMs / frameMs) : T;
    const s0 = s;
    const e0 = e;
    // Beyond a pause an edge takes only frames quieter than this (see `rejectedLoudDb`).
    const loud = peak - rejectedLoud;
    /** The farthest frame on from `edge` in direction `dir` while `inRange`, across short pauses. */
    const reach = (edge: number, dir: 1 | -1, inRange: (t: number) => boolean, onX: (t: number) => boolean): number => {
      let far = edge;
      let quiet = 0;
      let crossed = false;
      for (let t = edge + dir; inRange(t); t += dir) {
        if (crossed && rejectedLoud > 0 && levels[t]! >= loud) break;
        if (onX(t)) {
          far = t;
          quiet = 0;
        } else if (++quiet >= edgePause) break;
        else crossed = true;
      }
      return far;
    };
    // An edge on speech reaches outward across short pauses; one in a pause moves inward onto
    // the speech, and reaches outward from there only with `reachPastQuietEdge`.
    const startOnSpeech = onS(s);
    while (s < e && s - s0 < maxShift && !onS(s)) s++;
    if ((startOnSpeech || reachPastQuiet) && s < e && onS(s))
      s = reach(s, -1, (t) => t >= prevEnd && s0 - t <= maxShift, onS);
    const endOnSpeech = e > s && onE(e - 1);
    while (e > s && e0 - e < maxShift && !onE(e - 1)) e--;
    if ((endOnSpeech || reachPastQuiet) && e > s && onE(e - 1))
      e = reach(e - 1, 1, (t) => t < nextStart && t - e0 < maxShift, onE) + 1;
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
      if (last && a * frameMs < last.endMs + (options.bridgeMs ?? 0)) last.endMs = Math.max(last.endMs, b * frameMs);
      else out.push({ startMs: a * frameMs, endMs: b * frameMs });
    }
    prevEnd = e;
  });
  return out;
}
