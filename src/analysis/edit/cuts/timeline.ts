/**
 * The discretised output timeline the shot planner works on: who speaks when (speech
 * segments), quick exchanges of short turns, and the steps (cut at every speech edge and
 * footage edge, at most {@link STEP_MS} apart) with which cameras record in each.
 *
 * @module
 */

import type { Turn } from '../../../contract/types.ts';
import type { SourceSpan } from '../cut-rules.ts';
import type { EditCamera } from './camera-set.ts';
import type { OutputClock } from './output-clock.ts';

/** Longest step of the discretised output timeline (ms). Cuts land on step edges. */
export const STEP_MS = 100;
/**
 * A turn this short is a line in a quick exchange (when several follow each other); longer
 * turns get their own close-up, with pre-roll or hold into the pauses around them.
 */
const EXCHANGE_TURN_MS = 1500;

/**
 * A speaker's own pause at most this long (ms), between two of their turns with nobody else
 * speaking in it, is part of their turn for shot planning: a detector hears the breaths and
 * pauses inside a turn as gaps, and a cut to a wide in each would leave the speaker's
 * close-up for a moment at every breath. Chosen on the hands-off tuning split (3-minute sets,
 * seeds 1–4, speech-level true turns: 81.7 / 81.5 / 90.5 / 96.1 % of single-speaker time on the
 * speaker's own close-up with no hold, 95.8 / 92.9 / 96.3 / 98.5 % from 1.5 s on, no gain
 * beyond); see docs/cuts.md.
 */
export const OWN_PAUSE_MS = 1500;

/**
 * `turns` with each speaker's own pauses of at most `maxPauseMs` filled (see
 * {@link OWN_PAUSE_MS}); a gap in which another speaker talks is kept. Sorted by start.
 *
 * @example
 * holdOwnPauses([{ speaker: 'A', startMs: 0, endMs: 1000 }, { speaker: 'A', startMs: 1800, endMs: 3000 }], 1500);
 * // [{ speaker: 'A', startMs: 0, endMs: 3000 }]
 */
export function holdOwnPauses(turns: readonly Turn[], maxPauseMs: number = OWN_PAUSE_MS): Turn[] {
  const sorted = [...turns].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  const out: Turn[] = [];
  const lastOf = new Map<string, number>();
  // The latest end of any turn begun strictly before the current start, and the latest of
  // another speaker than that one's: together they give, for any speaker, the latest end of
  // someone else's earlier turn (one sweep instead of a scan per turn).
  const latest = new LatestEnds();
  let group = 0; // index of the first turn not yet in `latest`
  for (const [i, t] of sorted.entries()) {
    for (; group < i && sorted[group]!.startMs < t.startMs; group++) latest.add(sorted[group]!);
    const j = lastOf.get(t.speaker);
    const prev = j === undefined ? undefined : out[j]!;
    if (prev !== undefined) {
      const gap = t.startMs - prev.endMs;
      const someoneElse = latest.endOfOtherThan(t.speaker) > prev.endMs;
      if (gap <= maxPauseMs && !someoneElse) {
        out[j!] = { ...prev, endMs: Math.max(prev.endMs, t.endMs) };
        continue;
      }
    }
    lastOf.set(t.speaker, out.length);
    out.push({ ...t });
  }
  return out.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
}

/** The two latest turn ends of two different speakers among the turns added. */
class LatestEnds {
  private first = { endMs: -Infinity, speaker: '' };
  private second = -Infinity;

  add(turn: Turn): void {
    if (turn.speaker === this.first.speaker) this.first.endMs = Math.max(this.first.endMs, turn.endMs);
    else if (turn.endMs > this.first.endMs) {
      this.second = this.first.endMs;
      this.first = { endMs: turn.endMs, speaker: turn.speaker };
    } else this.second = Math.max(this.second, turn.endMs);
  }

  /** The latest end among the turns of speakers other than `speaker`. */
  endOfOtherThan(speaker: string): number {
    return speaker === this.first.speaker ? this.second : this.first.endMs;
  }
}

/** A stretch of output time during which the same speakers talk. */
export interface Segment {
  startMs: number;
  endMs: number;
  speakers: string[];
}

/** Elementary segments of output time with the set of speakers talking in each. */
export function speechSegments(turns: readonly Turn[], clock: OutputClock): Segment[] {
  const edges: Array<{ t: number; speaker: string; delta: 1 | -1 }> = [];
  for (const turn of turns) {
    if (!Number.isFinite(turn.startMs) || !Number.isFinite(turn.endMs)) continue;
    const a = clock.toOutput(turn.startMs);
    const b = clock.toOutput(turn.endMs);
    if (b <= a) continue;
    edges.push({ t: a, speaker: turn.speaker, delta: 1 }, { t: b, speaker: turn.speaker, delta: -1 });
  }
  edges.sort((x, y) => x.t - y.t || x.delta - y.delta);
  const active = new Map<string, number>();
  const segments: Segment[] = [];
  let prevT = 0;
  for (const e of edges) {
    if (e.t > prevT) {
      segments.push({ startMs: prevT, endMs: e.t, speakers: [...active.keys()].sort() });
      prevT = e.t;
    }
    const n = (active.get(e.speaker) ?? 0) + e.delta;
    if (n > 0) active.set(e.speaker, n);
    else active.delete(e.speaker);
  }
  if (clock.lengthMs > prevT) segments.push({ startMs: prevT, endMs: clock.lengthMs, speakers: [] });
  return segments.filter((s) => s.startMs < clock.lengthMs);
}

/** A quick exchange: output time, and who takes part. */
export interface Exchange {
  startMs: number;
  endMs: number;
  speakers: string[];
}

/**
 * Quick exchanges: runs of consecutive short turns (each under {@link EXCHANGE_TURN_MS} and the
 * minimum shot, each starting within that long after the previous one's end) of two or more
 * speakers, lasting at least the minimum shot together. No close-up can follow them, so they
 * are planned like an overlap of everyone involved (the group shot showing them all is wanted).
 * Output time.
 */
export function quickExchanges(turns: readonly Turn[], clock: OutputClock, minShotMs: number): Exchange[] {
  const minMs = Math.min(minShotMs, EXCHANGE_TURN_MS);
  const spans = turns
    .map((t) => ({ startMs: clock.toOutput(t.startMs), endMs: clock.toOutput(t.endMs), speaker: t.speaker }))
    .filter((t) => t.endMs > t.startMs)
    .sort((a, b) => a.startMs - b.startMs);
  // A backchannel inside someone's long turn is not part of an exchange: the turn goes on.
  const long = spans.filter((t) => t.endMs - t.startMs >= minMs);
  const inLongTurn = (t: (typeof spans)[number]): boolean =>
    long.some((l) => l.speaker !== t.speaker && l.startMs <= t.startMs && l.endMs >= t.endMs);
  const out: Exchange[] = [];
  let run: typeof spans = [];
  const close = (): void => {
    const who = [...new Set(run.map((t) => t.speaker))].sort();
    const a = run[0];
    const b = Math.max(...run.map((t) => t.endMs));
    if (a && who.length >= 2 && b - a.startMs >= minShotMs) out.push({ startMs: a.startMs, endMs: b, speakers: who });
    run = [];
  };
  for (const t of spans) {
    if (t.endMs - t.startMs < minMs && inLongTurn(t)) continue;
    const short = t.endMs - t.startMs < minMs;
    const lastEnd = run.length > 0 ? Math.max(...run.map((r) => r.endMs)) : -Infinity;
    if (!short || t.startMs - lastEnd >= minMs) close();
    if (short) run.push(t);
  }
  close();
  return out;
}

/** The discretised output timeline: step k is [edges[k], edges[k + 1]) and has `speakers[k]` talking. */
export interface Steps {
  edges: number[];
  speakers: string[][];
  /** available[c][k]: camera c records during step k. */
  available: Uint8Array[];
}

/** The steps of the output timeline, with who speaks and which cameras record in each. */
export function buildSteps(
  segments: readonly Segment[],
  cams: readonly EditCamera[],
  spans: readonly SourceSpan[],
  clock: OutputClock,
): Steps {
  const spanOf = new Map(spans.map((s) => [s.sourceId, s]));
  const marks = new Set<number>();
  for (const s of segments) marks.add(s.startMs).add(s.endMs);
  marks.add(0).add(clock.lengthMs);
  for (const s of spans) {
    for (const t of [s.startMs, s.endMs]) {
      if (!Number.isFinite(t)) continue;
      const o = clock.toOutput(t);
      if (o > 0 && o < clock.lengthMs) marks.add(o);
    }
  }
  const coarse = [...marks].sort((a, b) => a - b);
  const edges: number[] = [];
  const speakers: string[][] = [];
  let seg = 0;
  for (let i = 1; i < coarse.length; i++) {
    const a = coarse[i - 1]!;
    const b = coarse[i]!;
    while (seg < segments.length - 1 && segments[seg]!.endMs <= a) seg++;
    const who = segments[seg]?.speakers ?? [];
    const pieces = Math.max(1, Math.ceil((b - a) / STEP_MS - 1e-9));
    for (let p = 0; p < pieces; p++) {
      edges.push(a + ((b - a) * p) / pieces);
      speakers.push(who);
    }
  }
  edges.push(clock.lengthMs);
  const n = speakers.length;
  // Reference time of each step's middle; the steps are sorted, so one pass over the removed ranges.
  const refMid = new Float64Array(n);
  let r = 0;
  let shift = clock.startMs;
  for (let k = 0; k < n; k++) {
    const o = (edges[k]! + edges[k + 1]!) / 2;
    for (let rr = clock.removed[r]; rr !== undefined && o + shift > rr.startMs; rr = clock.removed[++r])
      shift += rr.endMs - rr.startMs;
    refMid[k] = o + shift;
  }
  const available = cams.map((cam) => {
    const span = spanOf.get(cam.sourceId);
    const row = new Uint8Array(n);
    for (let k = 0; k < n; k++)
      row[k] = span !== undefined && span.startMs <= refMid[k]! && span.endMs >= refMid[k]! ? 1 : 0;
    return row;
  });
  // Where no camera records, nothing can be shown: every camera is "available" (fitToFootage
  // leaves the hole), so the plan is not bent around it.
  for (let k = 0; k < n; k++) if (available.every((row) => row[k] === 0)) for (const row of available) row[k] = 1;
  return { edges, speakers, available };
}
