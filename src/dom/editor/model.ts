/**
 * The review editor's timeline model: pure functions over cuts, removed ranges, turns and a
 * view window. No DOM, no fetch: every edit takes plain data and returns new plain data, so
 * the Node tests can say exactly what each gesture must produce.
 *
 * All times are milliseconds on the reference timeline (the contract's convention).
 *
 * @module
 */
import type { Cut, JobSource, TimeRange, Turn } from '../../contract/types.ts';

/** The visible window of the timeline and the pixel width it is drawn into. */
export interface TimelineView {
  startMs: number;
  endMs: number;
  widthPx: number;
}

/** Cuts shorter than this are not created by dragging or splitting (a flash frame is never wanted). */
export const MIN_CUT_MS = 200;

/** Pauses between turns shorter than this are not offered for removal. */
export const MIN_PAUSE_MS = 300;

/** The x pixel of reference time `ms` in `view`. */
export function msToX(view: TimelineView, ms: number): number {
  const span = Math.max(1, view.endMs - view.startMs);
  return ((ms - view.startMs) / span) * view.widthPx;
}

/** The reference time at pixel `x` of `view`. */
export function xToMs(view: TimelineView, x: number): number {
  const span = Math.max(1, view.endMs - view.startMs);
  return view.startMs + (x / Math.max(1, view.widthPx)) * span;
}

/**
 * Zooms by `factor` (> 1 zooms in) keeping `anchorMs` at the same pixel, clamped to
 * `[0, totalMs]` and to a window of at least one second.
 *
 * @example
 * zoomView({ startMs: 0, endMs: 60_000, widthPx: 600 }, 2, 30_000, 60_000) // → 15 000 … 45 000
 */
export function zoomView(view: TimelineView, factor: number, anchorMs: number, totalMs: number): TimelineView {
  const span = view.endMs - view.startMs;
  const nextSpan = Math.min(Math.max(1000, span / factor), Math.max(1000, totalMs));
  const ratio = span > 0 ? (anchorMs - view.startMs) / span : 0.5;
  let startMs = anchorMs - ratio * nextSpan;
  startMs = Math.min(Math.max(0, startMs), Math.max(0, totalMs - nextSpan));
  return { startMs, endMs: startMs + nextSpan, widthPx: view.widthPx };
}

/** The index of the cut that contains `ms` (start inclusive, end exclusive), or -1. */
export function cutIndexAt(cuts: readonly Cut[], ms: number): number {
  return cuts.findIndex((c) => ms >= c.startMs && ms < c.endMs);
}

/**
 * The boundary near `ms`: the index `i` of the cut whose end meets cut `i + 1`'s start within
 * `toleranceMs`, the nearest one; null when none is that close.
 */
export function boundaryNear(cuts: readonly Cut[], ms: number, toleranceMs: number): number | null {
  let best: number | null = null;
  let bestDistance = Infinity;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const distance = Math.abs(cuts[i]!.endMs - ms);
    if (distance <= toleranceMs && distance < bestDistance) {
      best = i;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Moves the boundary between cut `index` and cut `index + 1` to `ms`, clamped so neither cut
 * becomes shorter than `minCutMs`. Both cuts get `reason` "edited: boundary moved".
 */
export function moveBoundary(cuts: readonly Cut[], index: number, ms: number, minCutMs = MIN_CUT_MS): Cut[] {
  const left = cuts[index];
  const right = cuts[index + 1];
  if (!left || !right) throw new RangeError(`no boundary after cut ${index} (there are ${cuts.length} cuts)`);
  const lo = left.startMs + minCutMs;
  const hi = right.endMs - minCutMs;
  const at = Math.round(Math.min(Math.max(ms, lo), hi));
  const out = cuts.slice();
  out[index] = { ...left, endMs: at, reason: 'edited: boundary moved' };
  out[index + 1] = { ...right, startMs: at, reason: 'edited: boundary moved' };
  return out;
}

/** Joins neighbouring cuts that show the same camera (the later reason is dropped). */
export function mergeSameCamera(cuts: readonly Cut[]): Cut[] {
  const out: Cut[] = [];
  for (const cut of cuts) {
    const last = out[out.length - 1];
    if (last && last.sourceId === cut.sourceId && last.endMs === cut.startMs)
      out[out.length - 1] = { ...last, endMs: cut.endMs };
    else out.push({ ...cut });
  }
  return out;
}

/** Sets the camera of cut `index` (merging it with neighbours that now show the same camera). */
export function setCutCamera(cuts: readonly Cut[], index: number, sourceId: string): Cut[] {
  const cut = cuts[index];
  if (!cut) throw new RangeError(`no cut ${index} (there are ${cuts.length} cuts)`);
  const out = cuts.slice();
  out[index] = { ...cut, sourceId, reason: 'edited: camera chosen by reviewer' };
  return mergeSameCamera(out);
}

/**
 * Picks camera `sourceId` from `ms` on: the cut under `ms` is split there and its second part
 * shows `sourceId` (no split when `ms` is within `minCutMs` of the cut's start: the whole cut
 * changes). Neighbours showing the same camera merge. Returns the cuts unchanged when `ms` is
 * outside every cut.
 */
export function pickCameraAt(cuts: readonly Cut[], ms: number, sourceId: string, minCutMs = MIN_CUT_MS): Cut[] {
  const index = cutIndexAt(cuts, ms);
  if (index < 0) return cuts.slice();
  const cut = cuts[index]!;
  if (cut.sourceId === sourceId) return cuts.slice();
  const at = Math.round(ms);
  if (at - cut.startMs < minCutMs || cut.endMs - at < minCutMs) return setCutCamera(cuts, index, sourceId);
  const out = cuts.slice();
  out.splice(
    index,
    1,
    { ...cut, endMs: at },
    { startMs: at, endMs: cut.endMs, sourceId, reason: 'edited: camera chosen by reviewer' },
  );
  return mergeSameCamera(out);
}

/** Sorts ranges and merges overlapping or touching ones. */
export function normaliseRanges(ranges: readonly TimeRange[]): TimeRange[] {
  const sorted = ranges
    .filter((r) => r.endMs > r.startMs)
    .map((r) => ({ startMs: r.startMs, endMs: r.endMs }))
    .sort((a, b) => a.startMs - b.startMs);
  const out: TimeRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.startMs <= last.endMs) last.endMs = Math.max(last.endMs, r.endMs);
    else out.push(r);
  }
  return out;
}

/** Removes `range` from the edit (adds it to the removed ranges). */
export function removeRange(removed: readonly TimeRange[], range: TimeRange): TimeRange[] {
  return normaliseRanges([...removed, range]);
}

/** Restores `range` (subtracts it from the removed ranges, splitting any that it cuts through). */
export function restoreRange(removed: readonly TimeRange[], range: TimeRange): TimeRange[] {
  const out: TimeRange[] = [];
  for (const r of normaliseRanges(removed)) {
    if (r.endMs <= range.startMs || r.startMs >= range.endMs) {
      out.push(r);
      continue;
    }
    if (r.startMs < range.startMs) out.push({ startMs: r.startMs, endMs: range.startMs });
    if (r.endMs > range.endMs) out.push({ startMs: range.endMs, endMs: r.endMs });
  }
  return out;
}

/** A pause the reviewer can toggle: a removed range, or a gap between turns that is kept. */
export interface Pause extends TimeRange {
  removed: boolean;
}

/**
 * The pauses of an edit: every removed range (removed: true) plus every gap of at least
 * `minPauseMs` between speech turns that no removed range touches (removed: false), in time
 * order. Restoring a removed range that lies in a gap makes that gap appear again, so a pause
 * can be removed and restored any number of times, and the list is the same after a reload.
 */
export function listPauses(
  turns: readonly Turn[],
  removed: readonly TimeRange[],
  totalMs: number,
  minPauseMs = MIN_PAUSE_MS,
): Pause[] {
  const speech = normaliseRanges(turns.map((t) => ({ startMs: t.startMs, endMs: t.endMs })));
  const gaps: TimeRange[] = [];
  let cursor = 0;
  for (const s of speech) {
    if (s.startMs - cursor >= minPauseMs) gaps.push({ startMs: cursor, endMs: s.startMs });
    cursor = Math.max(cursor, s.endMs);
  }
  if (speech.length > 0 && totalMs - cursor >= minPauseMs) gaps.push({ startMs: cursor, endMs: totalMs });
  const cut = normaliseRanges(removed);
  const kept = gaps.filter((g) => !cut.some((r) => r.startMs < g.endMs && r.endMs > g.startMs));
  return [...cut.map((r) => ({ ...r, removed: true })), ...kept.map((g) => ({ ...g, removed: false }))].sort(
    (a, b) => a.startMs - b.startMs,
  );
}

/** The length of the edited programme: the cuts' span minus the removed time inside it. */
export function editedDurationMs(cuts: readonly Cut[], removed: readonly TimeRange[]): number {
  let total = 0;
  for (const c of cuts) {
    let len = c.endMs - c.startMs;
    for (const r of normaliseRanges(removed))
      len -= Math.max(0, Math.min(c.endMs, r.endMs) - Math.max(c.startMs, r.startMs));
    total += Math.max(0, len);
  }
  return total;
}

/**
 * Where reference time `refMs` falls in `source`'s own media, in ms (see the contract: a source
 * starts at `offsetMs` on the reference timeline and its clock runs `driftPpm` fast). Negative
 * or past the end means the source was not recording then.
 */
export function sourceTimeMs(source: Pick<JobSource, 'offsetMs' | 'driftPpm'>, refMs: number): number {
  return (refMs - (source.offsetMs ?? 0)) * (1 + (source.driftPpm ?? 0) * 1e-6);
}

/** The reference time shown by `source` at its own time `sourceMs` (inverse of {@link sourceTimeMs}). */
export function referenceTimeMs(source: Pick<JobSource, 'offsetMs' | 'driftPpm'>, sourceMs: number): number {
  return sourceMs / (1 + (source.driftPpm ?? 0) * 1e-6) + (source.offsetMs ?? 0);
}

/** One arrow-key step: a frame at `frameRate` (default 30 fps), or one second with shift. */
export function stepMs(frameRate: number | undefined, shift: boolean): number {
  if (shift) return 1000;
  const fps = frameRate !== undefined && frameRate > 0 ? frameRate : 30;
  return 1000 / fps;
}

/** The end of the reference timeline: the latest end of any cut, turn or source. */
export function timelineEndMs(sources: readonly JobSource[], cuts: readonly Cut[], turns: readonly Turn[]): number {
  let end = 0;
  for (const s of sources) if (s.durationMs !== undefined) end = Math.max(end, referenceTimeMs(s, s.durationMs));
  for (const c of cuts) end = Math.max(end, c.endMs);
  for (const t of turns) end = Math.max(end, t.endMs);
  return end;
}

/** The speakers of the turns, in order of first appearance, for one lane each. */
export function speakerLanes(turns: readonly Turn[]): string[] {
  const out: string[] = [];
  for (const t of turns) if (!out.includes(t.speaker)) out.push(t.speaker);
  return out;
}

/** Formats ms as `m:ss.t` for the timeline and lists. */
export function formatTime(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  const minutes = Math.floor(abs / 60_000);
  const seconds = (abs % 60_000) / 1000;
  return `${sign}${minutes}:${seconds.toFixed(1).padStart(4, '0')}`;
}
