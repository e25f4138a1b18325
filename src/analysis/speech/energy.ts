/**
 * Quiet-span detection from an audio envelope: the "audio energy analysis" half of silence
 * removal. Speaker detection only knows about speech; this finds where the audio itself is
 * quiet, so a pause full of laughter is not cut.
 *
 * @module
 */

import type { TimeRange } from '../../contract/types.ts';
import { frameRms } from '../signal/signal-envelope.ts';

/** dB values below this are treated as this (digital silence would be −Infinity). */
export const ENVELOPE_FLOOR_DB = -100;

/**
 * Loudness per frame in dBFS (RMS of each frame, 20·log10), the input of {@link findQuietRanges}.
 *
 * @param samples mono samples in −1…1
 * @param sampleRate samples per second
 * @param frameMs frame length (default 10 ms); the last partial frame is dropped
 * @example
 * const db = envelopeDb(mono, 16000); // one value per 10 ms
 */
export function envelopeDb(samples: ArrayLike<number>, sampleRate: number, frameMs = 10): Float32Array {
  const hop = Math.max(1, Math.round((sampleRate * frameMs) / 1000));
  const rms = frameRms(samples, hop);
  const out = new Float32Array(rms.length);
  for (let i = 0; i < rms.length; i++) {
    const v = rms[i]!;
    out[i] = v > 0 ? Math.max(ENVELOPE_FLOOR_DB, 20 * Math.log10(v)) : ENVELOPE_FLOOR_DB;
  }
  return out;
}

/** Options of {@link findQuietRanges}. */
export interface QuietRangeOptions {
  /** Length of one envelope frame (default 10 ms). */
  frameMs?: number;
  /** Where frame 0 starts on the reference timeline (default 0). */
  offsetMs?: number;
  /**
   * Frames at or below this level are quiet. Default: adaptive, the noise floor (10th
   * percentile) plus `marginDb`, but never above the midpoint between floor and speech level
   * (95th percentile), so a recording with a high floor still separates speech from room tone.
   */
  thresholdDb?: number;
  /** Headroom above the noise floor for the adaptive threshold (default 12 dB). */
  marginDb?: number;
  /** Quiet runs shorter than this are not reported (default 200 ms). */
  minQuietMs?: number;
  /** Loud blips shorter than this inside a quiet run (clicks, a cough of the mic) are bridged (default 40 ms). */
  maxBlipMs?: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return ENVELOPE_FLOOR_DB;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))));
  return sorted[i]!;
}

/**
 * The threshold {@link findQuietRanges} uses for an envelope when none is given.
 *
 * Digital silence at the very start and end is left out of the statistics: on the reference
 * timeline it is where the source was not recording yet (or any more), not its room tone. A
 * camera that starts 3.6 s late on a 24 s timeline otherwise puts the 10th percentile at the
 * floor, the threshold at −88 dB, and no real pause is ever quiet. Digital silence inside the
 * recording (a gated mic) still counts.
 */
export function adaptiveQuietThresholdDb(envelope: ArrayLike<number>, marginDb = 12): number {
  const level = (v: number | undefined): number =>
    v !== undefined && Number.isFinite(v) ? Math.max(v, ENVELOPE_FLOOR_DB) : ENVELOPE_FLOOR_DB;
  let first = 0;
  let end = envelope.length;
  while (first < end && level(envelope[first]) <= ENVELOPE_FLOOR_DB) first++;
  while (end > first && level(envelope[end - 1]) <= ENVELOPE_FLOOR_DB) end--;
  const sorted = new Float64Array(end - first);
  for (let i = first; i < end; i++) sorted[i - first] = level(envelope[i]);
  sorted.sort();
  const floor = percentile(sorted, 0.1);
  const speech = percentile(sorted, 0.95);
  return Math.min(floor + marginDb, (floor + speech) / 2);
}

/**
 * Spans where the audio is quiet, in reference-time milliseconds, sorted and non-overlapping.
 *
 * @param envelope loudness in dB per frame (see {@link envelopeDb}); NaN counts as loud
 * @example
 * const quietRanges = findQuietRanges(envelopeDb(mono, 16000), { offsetMs: source.offsetMs ?? 0 });
 */
export function findQuietRanges(envelope: ArrayLike<number>, options: QuietRangeOptions = {}): TimeRange[] {
  const frameMs = options.frameMs ?? 10;
  const offsetMs = options.offsetMs ?? 0;
  const threshold = options.thresholdDb ?? adaptiveQuietThresholdDb(envelope, options.marginDb ?? 12);
  const minQuietFrames = Math.ceil((options.minQuietMs ?? 200) / frameMs);
  const maxBlipFrames = Math.floor((options.maxBlipMs ?? 40) / frameMs);
  const n = envelope.length;

  // Runs of quiet frames as [start, end) frame indices.
  const runs: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const v = i < n ? envelope[i]! : NaN;
    const quiet = i < n && (v <= threshold || v === -Infinity);
    if (quiet && start < 0) start = i;
    if (!quiet && start >= 0) {
      runs.push([start, i]);
      start = -1;
    }
  }
  // Bridge short loud blips between two quiet runs.
  const bridged: Array<[number, number]> = [];
  for (const run of runs) {
    const last = bridged.at(-1);
    if (last && run[0] - last[1] <= maxBlipFrames) last[1] = run[1];
    else bridged.push([run[0], run[1]]);
  }
  return bridged
    .filter(([a, b]) => b - a >= minQuietFrames)
    .map(([a, b]) => ({ startMs: offsetMs + a * frameMs, endMs: offsetMs + b * frameMs }));
}

/**
 * What the cut planner is given of the job's mix, measured once by speaker detection
 * (src/speakers/mix.ts) and carried whole, never field by field: the diarize response's
 * `mix`, the diarizing stage's output, the job record (which extends it) and
 * `PlanEditInput` (edit.ts, which extends it too). A new measure of the mix is a field
 * here and a line in {@link measureMix}.
 */
export interface MixMeasures {
  /**
   * Spans the audio energy analysis finds quiet, in reference time ({@link findQuietRanges}).
   * Without them silence removal removes nothing: a pause is only removed where both speaker
   * detection and the audio agree it is quiet.
   */
  quietRanges: TimeRange[];
}

/**
 * {@link MixMeasures} of the mix's envelope (dB per 10 ms frame from {@link envelopeDb}, the
 * whole reference timeline).
 *
 * @example
 * const measures = measureMix(envelopeDb(mix, 16000));
 */
export function measureMix(envelope: ArrayLike<number>): MixMeasures {
  return { quietRanges: findQuietRanges(envelope) };
}
