/** Measurements of an edit that a viewer would notice, shared by the scenario and fixture tests. */

import type { Cut, TimeRange, Turn } from '../../../src/contract/types.ts';

/** Spans where exactly one speaker talks, with who it is, minus the removed ranges. */
export function singleSpeakerSpans(
  turns: readonly Turn[],
  removed: readonly TimeRange[],
): Array<TimeRange & { speaker: string }> {
  const times = [
    ...new Set(turns.flatMap((t) => [t.startMs, t.endMs]).concat(removed.flatMap((r) => [r.startMs, r.endMs]))),
  ].sort((a, b) => a - b);
  const out: Array<TimeRange & { speaker: string }> = [];
  for (let i = 1; i < times.length; i++) {
    const a = times[i - 1]!;
    const b = times[i]!;
    const mid = (a + b) / 2;
    if (removed.some((r) => r.startMs <= mid && r.endMs >= mid)) continue;
    const who = new Set(turns.filter((t) => t.startMs <= mid && t.endMs >= mid).map((t) => t.speaker));
    if (who.size === 1) out.push({ startMs: a, endMs: b, speaker: [...who][0]! });
  }
  return out;
}

/** Milliseconds of `range` during which the cuts show `sourceId`. */
export function shownMs(cuts: readonly Cut[], sourceId: string, range: TimeRange): number {
  let ms = 0;
  for (const c of cuts) {
    if (c.sourceId !== sourceId) continue;
    const lo = Math.max(c.startMs, range.startMs);
    const hi = Math.min(c.endMs, range.endMs);
    if (hi > lo) ms += hi - lo;
  }
  return ms;
}

/**
 * The share of single-speaker speech time (kept by silence removal) that shows that speaker's
 * close-up. Speakers without a close-up are left out.
 */
export function closeupShare(
  turns: readonly Turn[],
  cuts: readonly Cut[],
  removed: readonly TimeRange[],
  closeupOf: ReadonlyMap<string, string>,
): number {
  let total = 0;
  let onCloseup = 0;
  for (const span of singleSpeakerSpans(turns, removed)) {
    const cam = closeupOf.get(span.speaker);
    if (cam === undefined) continue;
    total += span.endMs - span.startMs;
    onCloseup += shownMs(cuts, cam, span);
  }
  return total === 0 ? 1 : onCloseup / total;
}

/** Lengths of the pauses between turns (of anyone) after the removed ranges are taken out. */
export function pausesAfterRemoval(
  turns: readonly Turn[],
  removed: readonly TimeRange[],
): Array<{ pause: TimeRange; leftMs: number }> {
  const speech = turns.toSorted((a, b) => a.startMs - b.startMs);
  const merged: TimeRange[] = [];
  for (const t of speech) {
    const last = merged.at(-1);
    if (last && t.startMs <= last.endMs) last.endMs = Math.max(last.endMs, t.endMs);
    else merged.push({ startMs: t.startMs, endMs: t.endMs });
  }
  const out: Array<{ pause: TimeRange; leftMs: number }> = [];
  for (let i = 1; i < merged.length; i++) {
    const pause = { startMs: merged[i - 1]!.endMs, endMs: merged[i]!.startMs };
    let left = pause.endMs - pause.startMs;
    for (const r of removed) left -= Math.max(0, Math.min(r.endMs, pause.endMs) - Math.max(r.startMs, pause.startMs));
    out.push({ pause, leftMs: left });
  }
  return out;
}
