/**
 * The rules every cut list and removed-range list must follow (the spec leaves them open;
 * docs/decisions/004-cut-list-rules.md defines them). {@link checkCutList} enforces them for
 * lists that come from a person (submitSpeakerMapping, updateCuts) and the planner's output
 * is tested against the same function.
 *
 * @module
 */

import type { Cut, JobSource, TimeRange } from '../../contract/types.ts';

/**
 * Slack allowed where a list meets a measured number (a source's start or end, the timeline's
 * ends): durations come from probing and may be off by a fraction of a millisecond.
 * Between two cuts no slack is allowed: the editor moves one boundary, which is both ends.
 */
export const BOUND_TOLERANCE_MS = 1;

/** Where one video source has footage on the reference timeline. */
export interface SourceSpan {
  sourceId: string;
  startMs: number;
  /** `Infinity` when the source's duration is not known yet. */
  endMs: number;
}

/** The reference timeline the cuts must cover. */
export interface ReferenceTimeline {
  /** The earliest start of any video source (`offsetMs`, default 0). */
  startMs: number;
  /** The latest known end of any video source; `null` when no video source has a duration. */
  endMs: number | null;
  /** Footage of each video source, in the order of `sources`. */
  spans: SourceSpan[];
}

/**
 * The reference timeline of a job: from the earliest start to the latest end of its video
 * sources (audio-only sources cannot be shown, so they do not extend it). A source covers
 * `[offsetMs, offsetMs + durationMs]`; drift (`driftPpm`) is ignored, it moves an hour-long
 * source by well under a second and the render resamples anyway.
 */
export function referenceTimeline(sources: readonly JobSource[]): ReferenceTimeline {
  const spans: SourceSpan[] = [];
  for (const s of sources) {
    if (s.kind !== 'video') continue;
    const startMs = s.offsetMs ?? 0;
    const endMs = s.durationMs === undefined ? Infinity : startMs + s.durationMs;
    spans.push({ sourceId: s.id, startMs, endMs });
  }
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const span of spans) {
    startMs = Math.min(startMs, span.startMs);
    if (Number.isFinite(span.endMs)) endMs = Math.max(endMs, span.endMs);
  }
  if (spans.length === 0) return { startMs: 0, endMs: 0, spans };
  return { startMs, endMs: Number.isFinite(endMs) ? Math.max(endMs, startMs) : null, spans };
}

/** Total length of a list of ranges (they are assumed not to overlap). */
export function totalMs(ranges: readonly TimeRange[]): number {
  let total = 0;
  for (const r of ranges) total += r.endMs - r.startMs;
  return total;
}

/** How much of `[startMs, endMs]` survives the removed ranges: the length a viewer sees. */
export function keptMs(startMs: number, endMs: number, removedRanges: readonly TimeRange[]): number {
  let kept = endMs - startMs;
  for (const r of removedRanges) {
    const lo = Math.max(startMs, r.startMs);
    const hi = Math.min(endMs, r.endMs);
    if (hi > lo) kept -= hi - lo;
  }
  return kept;
}

/** A broken cut-list rule: which list, which element, which rule, and a message naming the field. */
export interface CutListViolation {
  /** The list the broken element belongs to. */
  field: 'cuts' | 'removedRanges';
  /** Index of the first element breaking a rule (0 for rules about the whole list). */
  index: number;
  /** Stable rule id, listed in docs/decisions/004-cut-list-rules.md. */
  rule: string;
  message: string;
}

/** The rule ids {@link checkCutList} can report. */
export const CUT_LIST_RULES = [
  'cut-finite',
  'cut-order',
  'cut-source',
  'cut-sorted',
  'cut-overlap',
  'cut-gap',
  'cut-start',
  'cut-end',
  'cut-in-source',
  'cuts-empty',
  'removed-finite',
  'removed-order',
  'removed-sorted',
  'removed-in-timeline',
] as const;

const fmt = (ms: number): string => (Number.isInteger(ms) ? String(ms) : ms.toFixed(3));

/** Is some instant of the open interval (a, b) covered by a video source? */
function footageBetween(spans: readonly SourceSpan[], a: number, b: number): boolean {
  return spans.some((s) => s.startMs < b && s.endMs > a);
}

/**
 * Checks a cut list and its removed ranges against the rules of
 * docs/decisions/004-cut-list-rules.md. Returns the first broken rule, or `null` when both
 * lists are valid.
 *
 * @example
 * const bad = checkCutList(body.cuts, { sources: job.sources, removedRanges: job.removed_ranges ?? [] });
 * if (bad) throw badRequest(bad.message);
 */
export function checkCutList(
  cuts: readonly Cut[],
  context: { sources: readonly JobSource[]; removedRanges: readonly TimeRange[] },
): CutListViolation | null {
  const timeline = referenceTimeline(context.sources);
  const spanOf = new Map(timeline.spans.map((s) => [s.sourceId, s]));
  for (let i = 0; i < cuts.length; i++) {
    const bad = checkCut(cuts, i, timeline, spanOf);
    if (bad) return bad;
  }
  const uncovered = checkCutsReachEnd(cuts, timeline);
  if (uncovered) return uncovered;
  const removed = context.removedRanges;
  for (let i = 0; i < removed.length; i++) {
    const bad = checkRemovedRange(removed, i, timeline);
    if (bad) return bad;
  }
  return null;
}

function violation(field: CutListViolation['field'], index: number, rule: string, message: string): CutListViolation {
  return { field, index, rule, message };
}

/** The rules one cut breaks first (finite, ordered, in its source, the start, sorted, no overlap, no gap), or null. */
function checkCut(
  cuts: readonly Cut[],
  i: number,
  timeline: ReferenceTimeline,
  spanOf: ReadonlyMap<string, SourceSpan>,
): CutListViolation | null {
  const cut = cuts[i]!;
  const at = `cuts[${i}]`;
  if (!Number.isFinite(cut.startMs)) return violation('cuts', i, 'cut-finite', `${at}.startMs must be a finite number`);
  if (!Number.isFinite(cut.endMs)) return violation('cuts', i, 'cut-finite', `${at}.endMs must be a finite number`);
  if (!(cut.startMs < cut.endMs)) {
    return violation(
      'cuts',
      i,
      'cut-order',
      `${at}.startMs (${fmt(cut.startMs)}) must be below endMs (${fmt(cut.endMs)})`,
    );
  }
  const span = spanOf.get(cut.sourceId);
  if (!span)
    return violation('cuts', i, 'cut-source', `${at}.sourceId "${cut.sourceId}" is not a video source of the job`);
  if (cut.startMs < span.startMs - BOUND_TOLERANCE_MS || cut.endMs > span.endMs + BOUND_TOLERANCE_MS) {
    const end = Number.isFinite(span.endMs) ? fmt(span.endMs) : 'its end';
    return violation(
      'cuts',
      i,
      'cut-in-source',
      `${at} (${fmt(cut.startMs)}–${fmt(cut.endMs)} ms) must lie within source "${cut.sourceId}" (${fmt(span.startMs)}–${end} ms on the reference timeline)`,
    );
  }
  if (i === 0) {
    if (Math.abs(cut.startMs - timeline.startMs) > BOUND_TOLERANCE_MS) {
      return violation(
        'cuts',
        0,
        'cut-start',
        `cuts[0].startMs must be ${fmt(timeline.startMs)} (the start of the timeline), not ${fmt(cut.startMs)}`,
      );
    }
    return null;
  }
  const prev = cuts[i - 1]!;
  if (cut.startMs < prev.startMs) {
    return violation(
      'cuts',
      i,
      'cut-sorted',
      `${at}.startMs (${fmt(cut.startMs)}) must not be before cuts[${i - 1}].startMs (${fmt(prev.startMs)}): cuts are sorted by startMs`,
    );
  }
  if (cut.startMs < prev.endMs) {
    return violation(
      'cuts',
      i,
      'cut-overlap',
      `${at}.startMs (${fmt(cut.startMs)}) overlaps cuts[${i - 1}], which ends at ${fmt(prev.endMs)}`,
    );
  }
  if (cut.startMs > prev.endMs && footageBetween(timeline.spans, prev.endMs, cut.startMs)) {
    return violation(
      'cuts',
      i,
      'cut-gap',
      `${at}.startMs (${fmt(cut.startMs)}) leaves a gap after cuts[${i - 1}], which ends at ${fmt(prev.endMs)}`,
    );
  }
  return null;
}

/** The cuts end at the end of the timeline (when it has one), or the rule they break. */
function checkCutsReachEnd(cuts: readonly Cut[], timeline: ReferenceTimeline): CutListViolation | null {
  if (timeline.endMs !== null && timeline.endMs > timeline.startMs) {
    const last = cuts.at(-1);
    if (!last) return violation('cuts', 0, 'cuts-empty', 'cuts must cover the timeline; the list is empty');
    if (Math.abs(last.endMs - timeline.endMs) > BOUND_TOLERANCE_MS) {
      return violation(
        'cuts',
        cuts.length - 1,
        'cut-end',
        `cuts[${cuts.length - 1}].endMs must be ${fmt(timeline.endMs)} (the end of the timeline), not ${fmt(last.endMs)}`,
      );
    }
  }
  return null;
}

/** The rules one removed range breaks first (finite, ordered, in the timeline, sorted), or null. */
function checkRemovedRange(
  removed: readonly TimeRange[],
  i: number,
  timeline: ReferenceTimeline,
): CutListViolation | null {
  const tlEnd = timeline.endMs ?? Infinity;
  const r = removed[i]!;
  const at = `removedRanges[${i}]`;
  if (!Number.isFinite(r.startMs))
    return violation('removedRanges', i, 'removed-finite', `${at}.startMs must be a finite number`);
  if (!Number.isFinite(r.endMs))
    return violation('removedRanges', i, 'removed-finite', `${at}.endMs must be a finite number`);
  if (!(r.startMs < r.endMs)) {
    return violation(
      'removedRanges',
      i,
      'removed-order',
      `${at}.startMs (${fmt(r.startMs)}) must be below endMs (${fmt(r.endMs)})`,
    );
  }
  if (r.startMs < timeline.startMs - BOUND_TOLERANCE_MS || r.endMs > tlEnd + BOUND_TOLERANCE_MS) {
    const end = Number.isFinite(tlEnd) ? fmt(tlEnd) : 'its end';
    return violation(
      'removedRanges',
      i,
      'removed-in-timeline',
      `${at} (${fmt(r.startMs)}–${fmt(r.endMs)} ms) must lie within the timeline (${fmt(timeline.startMs)}–${end} ms)`,
    );
  }
  const prev = removed[i - 1];
  if (prev && r.startMs < prev.endMs) {
    return violation(
      'removedRanges',
      i,
      'removed-sorted',
      `${at}.startMs (${fmt(r.startMs)}) must not be before removedRanges[${i - 1}].endMs (${fmt(prev.endMs)}): removed ranges are sorted and do not overlap`,
    );
  }
  return null;
}
