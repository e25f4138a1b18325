/**
 * Fitting a cut list to the footage: every instant gets a camera that was recording then;
 * holes nobody recorded stay uncut.
 *
 * @module
 */

import type { Cut } from '../../../contract/types.ts';
import type { SourceSpan } from '../cut-rules.ts';
import type { EditCamera, EditCameras } from './camera-set.ts';

/** Footage of each video source, and whether a source records all of [a, b]. */
interface Footage {
  spans: readonly SourceSpan[];
  spanOf: ReadonlyMap<string, SourceSpan>;
  covers: (id: string, a: number, b: number) => boolean;
}

/** Step 4: give every instant a camera that was recording then; holes nobody recorded stay uncut. */
export function fitToFootage(
  cuts: Cut[],
  cameras: EditCameras,
  spans: readonly SourceSpan[],
  minShotMs: number,
): Cut[] {
  const spanOf = new Map(spans.map((s) => [s.sourceId, s]));
  const covers = (id: string, a: number, b: number): boolean => {
    const s = spanOf.get(id);
    return s !== undefined && s.startMs <= a && s.endMs >= b;
  };
  const footage: Footage = { spans, spanOf, covers };
  const out: Cut[] = [];
  for (const cut of cuts) {
    if (covers(cut.sourceId, cut.startMs, cut.endMs)) {
      out.push(cut);
      continue;
    }
    const whole = wholeShotInstead(cut, cameras, footage, minShotMs);
    if (whole) out.push(whole);
    else out.push(...piecesOnFootage(cut, cameras, footage));
  }
  return mergeTouching(out);
}

/**
 * When the wanted camera records only a sliver of the shot (under the minimum and under half of
 * it), a camera that records all of it shows the whole shot: one cut instead of a flash of the
 * close-up. `null` when the sliver rule does not apply or no camera records the whole shot.
 */
function wholeShotInstead(cut: Cut, cameras: EditCameras, footage: Footage, minShotMs: number): Cut | null {
  const { spanOf, covers } = footage;
  const span = spanOf.get(cut.sourceId);
  const recorded = span ? Math.max(0, Math.min(span.endMs, cut.endMs) - Math.max(span.startMs, cut.startMs)) : 0;
  if (!(recorded < minShotMs && recorded < (cut.endMs - cut.startMs) / 2)) return null;
  const shown = cameras.all.find((c) => c.sourceId === cut.sourceId)?.speakers ?? [];
  const whole = cameras.all
    .filter((c) => covers(c.sourceId, cut.startMs, cut.endMs))
    .toSorted(
      (x, y) =>
        y.speakers.filter((s) => shown.includes(s)).length - x.speakers.filter((s) => shown.includes(s)).length ||
        y.speakers.length - x.speakers.length ||
        x.rank - y.rank,
    )[0];
  if (!whole) return null;
  return {
    ...cut,
    sourceId: whole.sourceId,
    reason: `${cut.reason ?? 'shot'}; camera not recording, ${whole.label} instead`,
  };
}

/**
 * A cut whose camera does not record all of it, cut at every footage edge inside it: each piece
 * on its own camera where it records, else on the best camera that does, else on any footage.
 */
function piecesOnFootage(cut: Cut, cameras: EditCameras, footage: Footage): Cut[] {
  const { spans, spanOf, covers } = footage;
  const out: Cut[] = [];
  const marks = new Set([cut.startMs, cut.endMs]);
  for (const s of spans) for (const t of [s.startMs, s.endMs]) if (t > cut.startMs && t < cut.endMs) marks.add(t);
  const points = [...marks].sort((a, b) => a - b);
  const shown = cameras.all.find((c) => c.sourceId === cut.sourceId)?.speakers ?? [];
  for (let k = 1; k < points.length; k++) {
    const a = points[k - 1]!;
    const b = points[k]!;
    if (covers(cut.sourceId, a, b)) {
      out.push({ ...cut, startMs: a, endMs: b });
      continue;
    }
    // Prefer a camera showing the same people, then one that lasts for the rest of the shot
    // (one fallback cut instead of several), then the widest camera.
    const reach = (c: EditCamera): number => Math.min(spanOf.get(c.sourceId)?.endMs ?? b, cut.endMs);
    const candidates = cameras.all
      .filter((c) => covers(c.sourceId, a, b))
      .toSorted((x, y) => {
        const sx = x.speakers.filter((s) => shown.includes(s)).length;
        const sy = y.speakers.filter((s) => shown.includes(s)).length;
        return sy - sx || reach(y) - reach(x) || y.speakers.length - x.speakers.length || x.rank - y.rank;
      });
    const cam = candidates[0];
    if (cam) {
      out.push({
        startMs: a,
        endMs: b,
        sourceId: cam.sourceId,
        reason: `${cut.reason ?? 'shot'}; camera not recording, ${cam.label} instead`,
      });
      continue;
    }
    const anyFootage = spans.find((s) => s.startMs <= a && s.endMs >= b);
    if (anyFootage)
      out.push({
        startMs: a,
        endMs: b,
        sourceId: anyFootage.sourceId,
        reason: 'no mapped camera recording (only footage)',
      });
    // else: no video source recorded this span; the cut list leaves a hole (rule cut-gap allows it).
  }
  return out;
}

/** Touching cuts on the same source join into one. */
function mergeTouching(cuts: readonly Cut[]): Cut[] {
  const merged: Cut[] = [];
  for (const c of cuts) {
    const last = merged.at(-1);
    if (last && last.sourceId === c.sourceId && last.endMs === c.startMs) last.endMs = c.endMs;
    else merged.push({ ...c });
  }
  return merged;
}
