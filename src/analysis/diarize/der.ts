/**
 * Diarization error rate, scored the way NIST md-eval does: over the reference speech time
 * (overlap counted once per reference speaker), missed speech + false alarm + speaker
 * confusion, with the optimal one-to-one speaker mapping (Hungarian on overlap time) and an
 * optional no-score collar around every reference boundary.
 *
 * @module
 */
import type { Turn } from '../../contract/types.ts';
import { assignMinCost } from './hungarian.ts';

/** Result of {@link diarizationErrorRate}; all durations in ms. */
export interface DerScore {
  /** (missed + falseAlarm + confusion) / scored; 0 when the reference has no scored speech. */
  der: number;
  scored: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  /** Reference speaker → hypothesis speaker chosen by the optimal mapping. */
  mapping: Record<string, string>;
  referenceSpeakers: number;
  hypothesisSpeakers: number;
}

/** Options of {@link diarizationErrorRate}. */
export interface DerOptions {
  /** No-score zone on each side of every reference turn boundary, in ms (md-eval's -c is this in s). Default 0. */
  collarMs?: number;
}

/**
 * Scores hypothesis turns against reference turns.
 *
 * @example
 * const { der } = diarizationErrorRate(truth, hyp, { collarMs: 250 });
 */
export function diarizationErrorRate(
  reference: readonly Turn[],
  hypothesis: readonly Turn[],
  options: DerOptions = {},
): DerScore {
  const collar = options.collarMs ?? 0;
  const refSpk = [...new Set(reference.map((t) => t.speaker))];
  const hypSpk = [...new Set(hypothesis.map((t) => t.speaker))];
  const refIdx = new Map(refSpk.map((s, i) => [s, i]));
  const hypIdx = new Map(hypSpk.map((s, i) => [s, i]));

  const zones = noScoreZones(reference, collar);
  const pieces = scoredPieces(reference, hypothesis, refIdx, hypIdx, zones);

  const overlap = refSpk.map(() => new Array<number>(hypSpk.length).fill(0));
  for (const p of pieces) for (const r of p.ref) for (const h of p.hyp) overlap[r]![h]! += p.dur;
  const assign = assignMinCost(overlap.map((row) => row.map((v) => -v)));
  const mapping: Record<string, string> = {};
  assign.forEach((h, r) => {
    if (h >= 0) mapping[refSpk[r]!] = hypSpk[h]!;
  });

  let scored = 0;
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  for (const p of pieces) {
    const nRef = p.ref.length;
    const nHyp = p.hyp.length;
    let correct = 0;
    for (const r of p.ref) if (assign[r]! >= 0 && p.hyp.includes(assign[r]!)) correct++;
    scored += p.dur * nRef;
    missed += p.dur * Math.max(0, nRef - nHyp);
    falseAlarm += p.dur * Math.max(0, nHyp - nRef);
    confusion += p.dur * (Math.min(nRef, nHyp) - correct);
  }
  return {
    der: scored > 0 ? (missed + falseAlarm + confusion) / scored : 0,
    scored,
    missed,
    falseAlarm,
    confusion,
    mapping,
    referenceSpeakers: refSpk.length,
    hypothesisSpeakers: hypSpk.length,
  };
}

/** No-score zones: [b - collar, b + collar] around every reference boundary, merged. */
function noScoreZones(reference: readonly Turn[], collar: number): Array<[number, number]> {
  const noScore: Array<[number, number]> = [];
  if (collar > 0) {
    for (const t of reference) {
      noScore.push([t.startMs - collar, t.startMs + collar], [t.endMs - collar, t.endMs + collar]);
    }
    noScore.sort((x, y) => x[0] - y[0]);
  }
  const merged: Array<[number, number]> = [];
  for (const z of noScore) {
    const last = merged[merged.length - 1];
    if (last && z[0] <= last[1]) last[1] = Math.max(last[1], z[1]);
    else merged.push([z[0], z[1]]);
  }
  return merged;
}

/** An elementary interval: its length and who is active in it (reference and hypothesis speaker indices). */
interface Piece {
  dur: number;
  ref: number[];
  hyp: number[];
}

/** The elementary intervals between all turn and zone edges, outside the no-score zones. */
function scoredPieces(
  reference: readonly Turn[],
  hypothesis: readonly Turn[],
  refIdx: ReadonlyMap<string, number>,
  hypIdx: ReadonlyMap<string, number>,
  merged: ReadonlyArray<[number, number]>,
): Piece[] {
  const cuts = new Set<number>();
  for (const t of [...reference, ...hypothesis]) cuts.add(t.startMs).add(t.endMs);
  for (const z of merged) cuts.add(z[0]).add(z[1]);
  const points = [...cuts].sort((x, y) => x - y);

  // Elementary intervals: who is active in each (reference and hypothesis speaker sets).
  const active = (turns: readonly Turn[], idx: ReadonlyMap<string, number>, a: number, b: number): number[] => {
    const set = new Set<number>();
    for (const t of turns) if (t.startMs <= a && t.endMs >= b) set.add(idx.get(t.speaker)!);
    return [...set];
  };
  const pieces: Piece[] = [];
  let z = 0;
  for (let k = 0; k + 1 < points.length; k++) {
    const a = points[k]!;
    const b = points[k + 1]!;
    if (b <= a) continue;
    while (z < merged.length && merged[z]![1] <= a) z++;
    const zone = merged[z];
    if (zone && zone[0] <= a && zone[1] >= b) continue;
    pieces.push({ dur: b - a, ref: active(reference, refIdx, a, b), hyp: active(hypothesis, hypIdx, a, b) });
  }
  return pieces;
}
