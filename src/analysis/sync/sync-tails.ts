/**
 * Sync of long recordings from two stretches per source instead of the whole audio: the heads
 * (the first minutes of every source) give the offsets, as {@link alignSources} does on whole
 * signals; then one short stretch near the end of each source's overlap with the reference,
 * decoded where the heads say it lies, is aligned against the same stretch of the reference.
 * A robust line through the head's and the tail's windows gives offset and drift over the whole
 * length. Decoding a few minutes per source rather than an hour is what makes sync fast.
 * Pure: the engine decodes the stretches; this module says where they are and combines them.
 *
 * @module
 */
import {
  alignSources,
  robustLine,
  SyncError,
  type AlignOptions,
  type SourceAlignment,
  type SyncFailure,
  type SyncSignal,
} from './sync.ts';

/** A stretch of one source's audio: `samples[0]` is at the source's media time `startMs`. */
export interface SyncPiece extends SyncSignal {
  startMs: number;
}

/** Where the tail stretches of one source and of the reference lie (media times, ms). */
export interface TailPlan {
  id: string;
  referenceStartMs: number;
  sourceStartMs: number;
  lengthMs: number;
}

/** The decoded tail stretches of one source. */
export interface TailPair {
  reference: SyncPiece;
  source: SyncPiece;
}

/**
 * Where to read each source's tail (and the reference's matching stretch): the last
 * `lengthMs` of their overlap on the reference clock, `marginMs` clear of either end. Sources
 * whose overlap ends within the heads need no tail (left out).
 *
 * @param head  {@link alignSources} on the heads, with `origin: 'reference'`.
 * @param durationsMs  every source's full media duration.
 * @param headMs  how much of each source the heads held.
 */
export function planTails(
  head: readonly SourceAlignment[],
  durationsMs: Readonly<Record<string, number>>,
  headMs: number,
  lengthMs: number,
  marginMs = 5000,
): TailPlan[] {
  const reference = head.find((a) => a.isReference);
  if (!reference) throw new Error('planTails: the head alignment has no reference');
  const referenceEnd = durationsMs[reference.id] ?? 0;
  const plans: TailPlan[] = [];
  for (const a of head) {
    if (a.isReference) continue;
    const sourceEnd = a.offsetMs + (durationsMs[a.id] ?? 0);
    const end = Math.min(referenceEnd, sourceEnd) - marginMs;
    const referenceStartMs = Math.max(0, end - lengthMs);
    const sourceStartMs = referenceStartMs - a.offsetMs;
    // A tail that starts inside either head tells nothing the head did not.
    if (sourceStartMs < headMs || referenceStartMs < headMs) continue;
    plans.push({ id: a.id, referenceStartMs, sourceStartMs, lengthMs });
  }
  return plans;
}

/**
 * Combines the head alignment with each source's tail: aligns the tail stretches, moves their
 * windows to full media times, and fits one line through the head's and the tail's windows.
 * Returns the alignments with `origin` applied (`earliest` by default, as alignSources), or the
 * sources whose tail did not agree with their head (the caller then decodes them whole).
 */
export function alignWithTails(
  head: readonly SourceAlignment[],
  tails: readonly TailPair[],
  options: AlignOptions = {},
): { ok: true; alignments: SourceAlignment[] } | { ok: false; failures: SyncFailure[] } {
  const failures: SyncFailure[] = [];
  const results = head.map((a) => ({ ...a, windows: a.windows.map((w) => ({ ...w })) }));
  for (const tail of tails) {
    const id = tail.source.id;
    const index = results.findIndex((a) => a.id === id);
    if (index < 0) throw new Error(`alignWithTails: source ${id} is not in the head alignment`);
    const headAlignment = results[index]!;
    let tailWindows;
    try {
      const pair = alignSources([{ ...tail.reference, id: `${id}:reference` }, tail.source], {
        ...options,
        referenceId: `${id}:reference`,
        origin: 'reference',
      });
      tailWindows = pair.find((a) => !a.isReference)!.windows;
    } catch (error) {
      if (!(error instanceof SyncError)) throw error;
      failures.push({ id, code: 'no_overlap', message: `source ${id}: the end did not align (${error.message})` });
      continue;
    }
    const windows = [
      ...headAlignment.windows,
      ...tailWindows.map((w) => ({
        ...w,
        sourceMs: w.sourceMs + tail.source.startMs,
        referenceMs: w.referenceMs + tail.reference.startMs,
      })),
    ];
    const fit = robustLine(windows, 2);
    const inliers = windows.filter((w) => w.inlier);
    const tailInliers = inliers.filter((w) => w.sourceMs >= tail.source.startMs).length;
    if (tailInliers === 0 || inliers.length * 2 < windows.length) {
      failures.push({
        id,
        code: 'no_overlap',
        message: `source ${id}: the end does not agree with the start (${inliers.length} of ${windows.length} windows on one line)`,
      });
      continue;
    }
    const strengths = inliers.map((w) => w.strength).sort((a, b) => a - b);
    const medianStrength = strengths[Math.floor(strengths.length / 2)]!;
    results[index] = {
      ...headAlignment,
      offsetMs: fit.alpha,
      driftPpm: (1 / fit.beta - 1) * 1e6,
      confidence: (inliers.length / windows.length) * Math.min(1, medianStrength / 30),
      windows,
    };
  }
  if (failures.length > 0) return { ok: false, failures };
  if ((options.origin ?? 'earliest') === 'earliest') {
    const shift = Math.min(...results.map((r) => r.offsetMs));
    for (const r of results) {
      r.offsetMs -= shift;
      for (const w of r.windows) w.referenceMs -= shift;
    }
  }
  return { ok: true, alignments: results };
}
