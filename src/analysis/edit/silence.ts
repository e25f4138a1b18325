/**
 * Silence removal: which spans of the reference timeline the render skips.
 *
 * A pause is a gap between two turns (of anyone) longer than `minPauseSec`. Only the parts of
 * it that the audio energy analysis also finds quiet are removed, so laughter, music and other
 * non-speech sounds that speaker detection ignores survive. Silence before the first and after
 * the last turn is not touched (trimming the ends is a different feature).
 *
 * How much of a pause is left:
 * - `tighten`: a beat of `keepPauseSec`, split evenly: half after the last word, half before
 *   the next one. Each half is at least `paddingSec`, so the beat is
 *   `max(keepPauseSec, 2 * paddingSec)` (0.7 s with the defaults).
 * - `remove`: `paddingSec` after the last word and `paddingSec` before the next one.
 * Around loud non-speech inside a pause `paddingSec` is kept as well.
 *
 * @module
 */

import {
  SILENCE_DEFAULTS,
  SILENCE_MODES,
  SILENCE_RANGES,
  type ResolvedSilenceSettings,
  type SilenceSettings,
  type TimeRange,
  type Turn,
} from '../../contract/types.ts';

/** Removed pieces shorter than this are not worth a jump in the picture; they are kept. */
export const MIN_REMOVED_MS = 50;

/**
 * Silence settings with every default filled in; omitted or `null` means `off` (spec:
 * "omitted means off").
 *
 * @example
 * resolveSilence({ mode: 'tighten' }); // { mode: 'tighten', minPauseSec: 1.5, keepPauseSec: 0.7, paddingSec: 0.25 }
 */
export function resolveSilence(settings: SilenceSettings | undefined | null): ResolvedSilenceSettings {
  return {
    mode: settings?.mode ?? 'off',
    minPauseSec: settings?.minPauseSec ?? SILENCE_DEFAULTS.minPauseSec,
    keepPauseSec: settings?.keepPauseSec ?? SILENCE_DEFAULTS.keepPauseSec,
    paddingSec: settings?.paddingSec ?? SILENCE_DEFAULTS.paddingSec,
  };
}

const NUMBER_FIELDS = ['minPauseSec', 'keepPauseSec', 'paddingSec'] as const;
const KNOWN_FIELDS: readonly string[] = ['mode', ...NUMBER_FIELDS];

/**
 * Validates a SilenceSettings value from a request body. Returns a message naming the field at
 * fault (the route answers 400 with it), or `null` when the value is valid.
 *
 * @param field where the value sits in the body, e.g. `"silence"`
 * @example
 * checkSilenceSettings({ mode: 'tighten', minPauseSec: 20 }, 'silence');
 * // 'silence.minPauseSec must be a number from 0.3 to 10'
 */
export function checkSilenceSettings(value: unknown, field: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `${field} must be an object with mode (${SILENCE_MODES.join(', ')})`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN_FIELDS.includes(key))
      return `${field}.${key} is not a silence setting (known: ${KNOWN_FIELDS.join(', ')})`;
  }
  if (!(SILENCE_MODES as readonly unknown[]).includes(record['mode'])) {
    return `${field}.mode must be one of ${SILENCE_MODES.join(', ')}`;
  }
  for (const key of NUMBER_FIELDS) {
    const v = record[key];
    if (v === undefined) continue;
    const [lo, hi] = SILENCE_RANGES[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) {
      return `${field}.${key} must be a number from ${lo} to ${hi}`;
    }
  }
  return null;
}

/** Sorted, merged union of ranges (touching ranges merge). */
export function mergeRanges(ranges: readonly TimeRange[]): TimeRange[] {
  const sorted = ranges.filter((r) => r.endMs > r.startMs).toSorted((a, b) => a.startMs - b.startMs);
  const out: TimeRange[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && r.startMs <= last.endMs) last.endMs = Math.max(last.endMs, r.endMs);
    else out.push({ startMs: r.startMs, endMs: r.endMs });
  }
  return out;
}

/** The gaps between turns of anyone, inside `[startMs, endMs]`; the ends are not gaps. */
export function pausesBetweenTurns(turns: readonly Turn[], startMs: number, endMs: number): TimeRange[] {
  const speech = mergeRanges(
    turns.map((t) => ({ startMs: Math.max(t.startMs, startMs), endMs: Math.min(t.endMs, endMs) })),
  );
  const pauses: TimeRange[] = [];
  for (let i = 1; i < speech.length; i++) {
    pauses.push({ startMs: speech[i - 1]!.endMs, endMs: speech[i]!.startMs });
  }
  return pauses;
}

/** Intersection of one range with a sorted, merged list of ranges. */
function intersect(range: TimeRange, sorted: readonly TimeRange[]): TimeRange[] {
  const out: TimeRange[] = [];
  for (const r of sorted) {
    if (r.startMs >= range.endMs) break;
    const lo = Math.max(range.startMs, r.startMs);
    const hi = Math.min(range.endMs, r.endMs);
    if (hi > lo) out.push({ startMs: lo, endMs: hi });
  }
  return out;
}

/**
 * The spans silence removal takes out, in reference time: sorted, non-overlapping, each inside
 * a pause between turns and inside a quiet range.
 *
 * @param turns detected speech of every speaker
 * @param timeline the reference timeline `[startMs, endMs]`
 * @param quietRanges spans the audio energy analysis finds quiet (see `findQuietRanges`); with
 *   none, nothing is removed: without an energy analysis a pause might hold laughter
 */
export function findRemovedRanges(
  turns: readonly Turn[],
  timeline: TimeRange,
  settings: ResolvedSilenceSettings,
  quietRanges: readonly TimeRange[],
): TimeRange[] {
  if (settings.mode === 'off') return [];
  const minPauseMs = settings.minPauseSec * 1000;
  const paddingMs = settings.paddingSec * 1000;
  // Half the beat on each side of the pause, never less than the padding.
  const edgeMs = settings.mode === 'tighten' ? Math.max((settings.keepPauseSec * 1000) / 2, paddingMs) : paddingMs;
  // Padding around loud non-speech: shrink every quiet range by paddingMs on both sides.
  const quiet = mergeRanges(quietRanges)
    .map((q) => ({ startMs: q.startMs + paddingMs, endMs: q.endMs - paddingMs }))
    .filter((q) => q.endMs > q.startMs);
  const removed: TimeRange[] = [];
  for (const pause of pausesBetweenTurns(turns, timeline.startMs, timeline.endMs)) {
    if (pause.endMs - pause.startMs <= minPauseMs) continue;
    const candidate = { startMs: pause.startMs + edgeMs, endMs: pause.endMs - edgeMs };
    if (candidate.endMs <= candidate.startMs) continue;
    for (const piece of intersect(candidate, quiet)) {
      if (piece.endMs - piece.startMs >= MIN_REMOVED_MS) removed.push(piece);
    }
  }
  return removed;
}
