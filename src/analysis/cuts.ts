/**
 * Cut generation: which camera to show when, from who speaks (turns), who is on which camera
 * (tracks, optionally ranked by the camera map) and an editing preset.
 *
 * The plan is the optimum of a cost over the output timeline (reference time with the removed
 * ranges taken out, so shot lengths are what a viewer sees), found by dynamic programming with
 * explicit shot durations (a semi-Markov Viterbi):
 * - the timeline is cut into steps at every speech edge and footage edge, and at most
 *   {@link STEP_MS} apart;
 * - each step costs, per camera, how badly that camera serves the moment: single-speaker speech
 *   wants that speaker's close-up, overlapping speech wants a group shot showing the people
 *   involved, a speaker without a close-up wants a group shot showing them; nobody speaking
 *   costs (almost) nothing anywhere, so cuts move into pauses (pre-roll before a turn, hold
 *   after it);
 * - every cut costs a little ({@link CutCosts}), so the edit does not flap;
 * - hard constraints: no shot shorter than the preset's minimum, no close-up longer than the
 *   maximum when a group shot can relieve it, no camera that shows nobody, no camera where it
 *   has no footage. They are enforced as penalties far above any soft cost, so they only give
 *   way where footage makes them impossible (see {@link planCuts}).
 *
 * E_c(t), the cheapest plan whose shot on camera c ends at step t, is the minimum over shot
 * starts s in a window [t - max, t - min] of B_c(s) + P_c(t) - P_c(s) (B: the best plan ending
 * at s on another camera plus a cut, P: prefix sums of camera c's cost). The window slides
 * forward, so monotone deques give each E_c(t) in amortised O(1): O(steps x cameras) overall.
 *
 * @module
 */

import type { CameraKind, CameraMap, Cut, TimeRange, Track, Turn } from '../contract/types.ts';
import type { SourceSpan } from './cut-rules.ts';
import type { EditPreset } from './presets.ts';

/** A camera the edit may use: a video source that shows at least one speaker. */
export interface EditCamera {
  sourceId: string;
  speakers: string[];
  /** How the reasons name the shot. */
  label: 'close-up' | 'two-shot' | 'wide';
  /** Lower is preferred among equal candidates (camera map kind and confidence). */
  rank: number;
}

/** The cameras of an edit, by role. */
export interface EditCameras {
  /** Each speaker's own camera. */
  closeups: Map<string, EditCamera>;
  /** Cameras showing two or more speakers (a wide or two-shot never counts as anyone's own camera). */
  groups: EditCamera[];
  /** Every usable camera, in track order. */
  all: EditCamera[];
}

const KIND_RANK: Record<CameraKind, number> = { closeup: 0, wide: 0, twoshot: 0, unknown: 1, multi: 2 };

/**
 * Sorts the tracks into close-ups and group shots. Only video sources of the job whose track
 * names speakers are used: the edit never cuts to a camera that shows nobody.
 */
export function editCameras(
  tracks: readonly Track[],
  videoSourceIds: ReadonlySet<string>,
  cameraMap: CameraMap | null,
): EditCameras {
  const speakersOf = new Map<string, string[]>();
  for (const t of tracks) {
    if (!videoSourceIds.has(t.sourceId)) continue;
    const list = speakersOf.get(t.sourceId) ?? [];
    for (const s of t.speakers) if (!list.includes(s)) list.push(s);
    speakersOf.set(t.sourceId, list);
  }
  const all: EditCamera[] = [];
  for (const [sourceId, speakers] of speakersOf) {
    if (speakers.length === 0) continue;
    const mapped = cameraMap?.cameras.find((c) => c.sourceId === sourceId);
    const rank =
      (mapped ? KIND_RANK[mapped.kind] * 3 : 3) +
      (mapped?.confidence === 'high' ? 0 : mapped?.confidence === 'low' ? 1 : 2);
    const label =
      speakers.length === 1 ? 'close-up' : mapped?.kind === 'twoshot' || speakers.length === 2 ? 'two-shot' : 'wide';
    all.push({ sourceId, speakers, label, rank });
  }
  const closeups = new Map<string, EditCamera>();
  const byRank = all.toSorted((a, b) => a.rank - b.rank);
  for (const cam of byRank) {
    const only = cam.speakers.length === 1 ? cam.speakers[0]! : undefined;
    if (only !== undefined && !closeups.has(only)) closeups.set(only, cam);
  }
  // A camera the map calls a close-up of one speaker, placed on a track with others too.
  for (const c of cameraMap?.cameras ?? []) {
    const who = c.kind === 'closeup' && c.speakers.length === 1 ? c.speakers[0]! : undefined;
    if (who === undefined || closeups.has(who)) continue;
    const cam = all.find((a) => a.sourceId === c.sourceId && a.speakers.includes(who));
    if (cam) closeups.set(who, { ...cam, label: 'close-up' });
  }
  const groups = all.filter(
    (c) => c.speakers.length >= 2 && ![...closeups.values()].some((k) => k.sourceId === c.sourceId),
  );
  return { closeups, groups, all };
}

/**
 * The group shot for a moment involving `involved`: the one showing most of them; for an
 * overlap or exchange the tightest such shot (a two-shot of both beats the wide), for a
 * monologue relief the widest (it shows the listeners). `null` when no group shot shows any
 * of them.
 */
export function chooseGroupShot(
  cameras: EditCameras,
  involved: readonly string[],
  purpose: 'together' | 'relief',
): EditCamera | null {
  let best: EditCamera | null = null;
  let bestKey: number[] = [];
  for (const cam of cameras.groups) {
    const shown = involved.filter((s) => cam.speakers.includes(s)).length;
    if (shown === 0) continue;
    const size = purpose === 'together' ? cam.speakers.length : -cam.speakers.length;
    const key = [-shown, size, cam.rank];
    if (!best || compareKeys(key, bestKey) < 0) {
      best = cam;
      bestKey = key;
    }
  }
  return best;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  return 0;
}

/** Maps reference time to output time and back, around sorted, non-overlapping removed ranges. */
export class OutputClock {
  readonly lengthMs: number;
  constructor(
    readonly startMs: number,
    readonly endMs: number,
    readonly removed: readonly TimeRange[],
  ) {
    let kept = endMs - startMs;
    for (const r of removed) kept -= r.endMs - r.startMs;
    this.lengthMs = kept;
  }

  /** Output time of reference instant `t` (clamped to the timeline). */
  toOutput(t: number): number {
    const c = Math.min(Math.max(t, this.startMs), this.endMs);
    let out = c - this.startMs;
    for (const r of this.removed) {
      if (r.startMs >= c) break;
      out -= Math.min(c, r.endMs) - r.startMs;
    }
    return out;
  }

  /** The earliest reference instant shown at output time `o`. */
  toReference(o: number): number {
    if (o <= 0) return this.startMs;
    if (o >= this.lengthMs) return this.endMs;
    let t = this.startMs + o;
    for (const r of this.removed) {
      if (t > r.startMs) t += r.endMs - r.startMs;
      else break;
    }
    return t;
  }
}

/** Longest step of the discretised output timeline (ms). Cuts land on step edges. */
export const STEP_MS = 100;
/**
 * The soft costs of the plan, per millisecond of output time unless noted. The defaults are
 * {@link DEFAULT_CUT_COSTS}; tests pass other weights to compute, for example, the best close-up
 * share the hard constraints allow.
 */
export interface CutCosts {
  /** One cut, in milliseconds of a speaker missing their close-up: enough to stop flapping. */
  cut: number;
  /** A speaker with a recording close-up shown on a group shot that includes them. */
  missOnGroup: number;
  /** A speaker shown on a camera that does not show them (someone else's close-up). */
  missElsewhere: number;
  /** A speaker without a close-up not on a group shot that shows them. */
  noCloseupMiss: number;
  /** Plan quick exchanges of short turns on a group shot (see quickExchanges). */
  quickExchanges: boolean;
}

/** The costs planEdit uses. Showing the wrong person is worse than the wide showing the speaker. */
export const DEFAULT_CUT_COSTS: Readonly<CutCosts> = {
  cut: 100,
  missOnGroup: 1,
  missElsewhere: 1.2,
  noCloseupMiss: 0.15,
  quickExchanges: true,
};
/** Per millisecond and camera size: tie-breaks (tightest group for speech, widest for silence). */
const TIE = 0.001;
/** A shot under the minimum, or a close-up held over the maximum: only where footage forces it. */
const SHORT_PENALTY = 1e10;
const SPLIT_PENALTY = 1e9;
/**
 * A turn this short is a line in a quick exchange (when several follow each other); longer
 * turns get their own close-up, with pre-roll or hold into the pauses around them.
 */
const EXCHANGE_TURN_MS = 1500;

/** A stretch of output time during which the same speakers talk. */
interface Segment {
  startMs: number;
  endMs: number;
  speakers: string[];
}

/** Elementary segments of output time with the set of speakers talking in each. */
function speechSegments(turns: readonly Turn[], clock: OutputClock): Segment[] {
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

/**
 * Quick exchanges: runs of consecutive short turns (each under {@link EXCHANGE_TURN_MS} and the
 * minimum shot, each starting within that long after the previous one's end) of two or more
 * speakers, lasting at least the minimum shot together. No close-up can follow them, so they
 * are planned like an overlap of everyone involved (the group shot showing them all is wanted).
 * Output time.
 */
/** A quick exchange: output time, and who takes part. */
interface Exchange {
  startMs: number;
  endMs: number;
  speakers: string[];
}

function quickExchanges(turns: readonly Turn[], clock: OutputClock, minShotMs: number): Exchange[] {
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
interface Steps {
  edges: number[];
  speakers: string[][];
  /** available[c][k]: camera c records during step k. */
  available: Uint8Array[];
}

function buildSteps(
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

/** Cost per millisecond of showing each camera during one step (see the module comment). */
function stepCosts(
  who: readonly string[],
  cams: readonly EditCamera[],
  closeupIdx: ReadonlyMap<string, number>,
  avail: (c: number) => boolean,
  costs: CutCosts,
): number[] {
  const mapped = who.filter((s) => cams.some((c) => c.speakers.includes(s)));
  if (mapped.length === 0) {
    // Nobody (or only someone no camera shows) speaks: free, the widest shot by a hair.
    const widest = Math.max(...cams.map((c) => c.speakers.length));
    return cams.map((c) => TIE * 0.1 * (widest - c.speakers.length));
  }
  if (mapped.length === 1) {
    const x = mapped[0]!;
    const own = closeupIdx.get(x);
    if (own !== undefined && avail(own)) {
      return cams.map((c, i) =>
        i === own ? 0 : c.speakers.includes(x) ? costs.missOnGroup - TIE * c.speakers.length : costs.missElsewhere,
      );
    }
    return cams.map((c) => (c.speakers.includes(x) ? TIE * c.speakers.length : costs.noCloseupMiss));
  }
  return cams.map((c) => {
    const shown = mapped.filter((s) => c.speakers.includes(s)).length;
    return costs.missOnGroup * (1 - shown / mapped.length) + TIE * c.speakers.length;
  });
}

/** One shot of the optimal plan, in steps. */
interface PlannedShot {
  from: number;
  to: number;
  cam: number;
}

/** A monotone deque over shot starts: the front holds the cheapest start of the window. */
class StartWindow {
  private readonly idx: Int32Array;
  private head = 0;
  private tail = 0;
  constructor(
    size: number,
    private readonly value: Float64Array,
  ) {
    this.idx = new Int32Array(size);
  }
  push(s: number): void {
    const v = this.value[s]!;
    // Ties keep the later start: the shot before holds longer (the cut lands late in a pause).
    while (this.tail > this.head && this.value[this.idx[this.tail - 1]!]! >= v) this.tail--;
    this.idx[this.tail++] = s;
  }
  dropBefore(s: number): void {
    while (this.tail > this.head && this.idx[this.head]! < s) this.head++;
  }
  clear(): void {
    this.head = this.tail = 0;
  }
  front(): number {
    return this.tail > this.head ? this.idx[this.head]! : -1;
  }
}

/**
 * The optimal shot sequence over `steps` (see the module comment). Minimum and maximum are hard
 * except where footage forces otherwise: a shot may be shorter than `minMs` when the camera
 * before it stops recording where it starts, or its own camera stops recording where it ends.
 */
function optimalShots(
  steps: Steps,
  cams: readonly EditCamera[],
  cost: readonly Float64Array[],
  minMs: number,
  maxMs: readonly number[],
  cutCost: number,
): PlannedShot[] {
  const n = steps.speakers.length;
  const C = cams.length;
  const T = steps.edges;
  // Prefix sums of cost x duration per camera.
  const P = cost.map((row) => {
    const p = new Float64Array(n + 1);
    for (let k = 0; k < n; k++) p[k + 1] = p[k]! + row[k]! * (T[k + 1]! - T[k]!);
    return p;
  });
  const E = Array.from({ length: C }, () => new Float64Array(n + 1).fill(Infinity));
  const fromS = Array.from({ length: C }, () => new Int32Array(n + 1).fill(-1));
  const viaWaiver = Array.from({ length: C }, () => new Uint8Array(n + 1));
  const prevCam = Array.from({ length: C }, () => new Int32Array(n + 1).fill(-1));
  const prevCamWaived = Array.from({ length: C }, () => new Int32Array(n + 1).fill(-1));
  const longVal = Array.from({ length: C }, () => new Float64Array(n + 1));
  const shortVal = Array.from({ length: C }, () => new Float64Array(n + 1));
  const rawVal = Array.from({ length: C }, () => new Float64Array(n + 1));
  const longQ = longVal.map((v) => new StartWindow(n + 1, v));
  const shortQ = shortVal.map((v) => new StartWindow(n + 1, v));
  const rawQ = rawVal.map((v) => new StartWindow(n + 1, v));
  const nextLong = new Int32Array(C); // first start not yet moved into the long window
  const lo = new Int32Array(C); // earliest start from which camera c records without a break
  const firstStart = new Int32Array(C); // the maximum's bound on shot starts only moves forward
  for (let t = 1; t <= n; t++) {
    const s = t - 1;
    // B_c(s): best plan ending at s on another camera (+ a cut), or on c itself (a hidden split).
    let best = Infinity;
    let bestCam = -1;
    let second = Infinity;
    let secondCam = -1;
    if (s > 0) {
      for (let c = 0; c < C; c++) {
        const e = E[c]![s]!;
        if (e < best) {
          second = best;
          secondCam = bestCam;
          best = e;
          bestCam = c;
        } else if (e < second) {
          second = e;
          secondCam = c;
        }
      }
    }
    for (let c = 0; c < C; c++) {
      if (steps.available[c]![s] === 0) {
        lo[c] = t;
        longQ[c]!.clear();
        shortQ[c]!.clear();
        rawQ[c]!.clear();
        nextLong[c] = t;
        continue;
      }
      let b: number;
      let bw = Infinity;
      if (s === 0) {
        b = 0;
        prevCam[c]![s] = -1;
      } else {
        const other = bestCam !== c ? best : second;
        const otherCam = bestCam !== c ? bestCam : secondCam;
        b = other + cutCost;
        prevCam[c]![s] = otherCam;
        const split = E[c]![s]! + SPLIT_PENALTY;
        if (split < b) {
          b = split;
          prevCam[c]![s] = c;
        }
        // A camera stopping here forces the switch: the shot after it may be short.
        for (let d = 0; d < C; d++) {
          if (d === c || steps.available[d]![s] === 1 || steps.available[d]![s - 1] === 0) continue;
          const e = E[d]![s]! + cutCost;
          if (e < bw) {
            bw = e;
            prevCamWaived[c]![s] = d;
          }
        }
      }
      const p = P[c]![s]!;
      longVal[c]![s] = b - p;
      rawVal[c]![s] = b - p;
      shortVal[c]![s] = Math.min(b + SHORT_PENALTY, bw) - p;
      shortQ[c]!.push(s);
      rawQ[c]!.push(s);
    }
    for (let c = 0; c < C; c++) {
      if (steps.available[c]![s] === 0) continue;
      while (nextLong[c]! <= s && T[t]! - T[nextLong[c]!]! >= minMs - 1e-6) {
        if (nextLong[c]! >= lo[c]!) longQ[c]!.push(nextLong[c]!);
        nextLong[c]!++;
      }
      const maxStart = maxMs[c]!;
      // The window's earliest start: not before the camera started recording, not longer than the maximum.
      let first = Math.max(firstStart[c]!, lo[c]!);
      while (first < t && T[t]! - T[first]! > maxStart + 1e-6) first++;
      firstStart[c] = first;
      longQ[c]!.dropBefore(first);
      shortQ[c]!.dropBefore(Math.max(first, nextLong[c]!));
      rawQ[c]!.dropBefore(Math.max(first, nextLong[c]!));
      const pt = P[c]![t]!;
      let e = Infinity;
      let from = -1;
      let waived = 0;
      const l = longQ[c]!.front();
      if (l >= 0) {
        e = longVal[c]![l]! + pt;
        from = l;
      }
      const sh = shortQ[c]!.front();
      if (sh >= 0 && shortVal[c]![sh]! + pt < e) {
        e = shortVal[c]![sh]! + pt;
        from = sh;
        waived = shortVal[c]![sh]! + P[c]![sh]! < rawVal[c]![sh]! + P[c]![sh]! + SHORT_PENALTY ? 1 : 0;
      }
      // Its own camera stops recording right after: the shot may be short.
      const ownStops = t < n && steps.available[c]![t] === 0;
      const r = rawQ[c]!.front();
      if (ownStops && r >= 0 && rawVal[c]![r]! + pt < e) {
        e = rawVal[c]![r]! + pt;
        from = r;
        waived = 0;
      }
      E[c]![t] = e;
      fromS[c]![t] = from;
      viaWaiver[c]![t] = waived;
    }
  }
  let cam = -1;
  let bestEnd = Infinity;
  for (let c = 0; c < C; c++) {
    if (E[c]![n]! < bestEnd) {
      bestEnd = E[c]![n]!;
      cam = c;
    }
  }
  const shots: PlannedShot[] = [];
  let t = n;
  while (cam >= 0 && t > 0) {
    const s = fromS[cam]![t]!;
    if (s < 0) break;
    shots.push({ from: s, to: t, cam });
    const next = viaWaiver[cam]![t] === 1 ? prevCamWaived[cam]![s]! : prevCam[cam]![s]!;
    t = s;
    cam = next;
  }
  shots.reverse();
  // Hidden splits (same camera twice) join back into one shot.
  const merged: PlannedShot[] = [];
  for (const sh of shots) {
    const last = merged.at(-1);
    if (last && last.cam === sh.cam) last.to = sh.to;
    else merged.push({ ...sh });
  }
  return merged;
}
/** Step 4: give every instant a camera that was recording then; holes nobody recorded stay uncut. */
function fitToFootage(cuts: Cut[], cameras: EditCameras, spans: readonly SourceSpan[], minShotMs: number): Cut[] {
  const spanOf = new Map(spans.map((s) => [s.sourceId, s]));
  const covers = (id: string, a: number, b: number): boolean => {
    const s = spanOf.get(id);
    return s !== undefined && s.startMs <= a && s.endMs >= b;
  };
  const out: Cut[] = [];
  for (const cut of cuts) {
    if (covers(cut.sourceId, cut.startMs, cut.endMs)) {
      out.push(cut);
      continue;
    }
    // When the wanted camera records only a sliver of the shot (under the minimum and under
    // half of it), a camera that records all of it shows the whole shot: one cut instead of a
    // flash of the close-up.
    const span = spanOf.get(cut.sourceId);
    const recorded = span ? Math.max(0, Math.min(span.endMs, cut.endMs) - Math.max(span.startMs, cut.startMs)) : 0;
    if (recorded < minShotMs && recorded < (cut.endMs - cut.startMs) / 2) {
      const shown = cameras.all.find((c) => c.sourceId === cut.sourceId)?.speakers ?? [];
      const whole = cameras.all
        .filter((c) => covers(c.sourceId, cut.startMs, cut.endMs))
        .toSorted(
          (x, y) =>
            y.speakers.filter((s) => shown.includes(s)).length - x.speakers.filter((s) => shown.includes(s)).length ||
            y.speakers.length - x.speakers.length ||
            x.rank - y.rank,
        )[0];
      if (whole) {
        out.push({
          ...cut,
          sourceId: whole.sourceId,
          reason: `${cut.reason ?? 'shot'}; camera not recording, ${whole.label} instead`,
        });
        continue;
      }
    }
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
  }
  const merged: Cut[] = [];
  for (const c of out) {
    const last = merged.at(-1);
    if (last && last.sourceId === c.sourceId && last.endMs === c.startMs) last.endMs = c.endMs;
    else merged.push({ ...c });
  }
  return merged;
}

/** What a shot covers: speech per speaker, alone or overlapped. */
interface ShotContent {
  single: Map<string, number>;
  overlap: Map<string, number>;
  overlapMs: number;
  /** First moment (output ms) someone speaks in the shot, per speaker. */
  firstSpeech: Map<string, number>;
  /** Last moment (output ms) someone speaks in the shot, per speaker. */
  lastSpeech: Map<string, number>;
}

function shotContent(steps: Steps, shot: PlannedShot, cams: readonly EditCamera[]): ShotContent {
  const single = new Map<string, number>();
  const overlap = new Map<string, number>();
  const firstSpeech = new Map<string, number>();
  const lastSpeech = new Map<string, number>();
  let overlapMs = 0;
  for (let k = shot.from; k < shot.to; k++) {
    const who = steps.speakers[k]!.filter((s) => cams.some((c) => c.speakers.includes(s)));
    const d = steps.edges[k + 1]! - steps.edges[k]!;
    for (const s of who) {
      if (!firstSpeech.has(s)) firstSpeech.set(s, steps.edges[k]!);
      lastSpeech.set(s, steps.edges[k + 1]!);
    }
    if (who.length === 1) single.set(who[0]!, (single.get(who[0]!) ?? 0) + d);
    else if (who.length > 1) {
      overlapMs += d;
      for (const s of who) overlap.set(s, (overlap.get(s) ?? 0) + d);
    }
  }
  return { single, overlap, overlapMs, firstSpeech, lastSpeech };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Why a shot was chosen, in words the review editor shows. */
function shotReason(
  shot: PlannedShot,
  prev: { shot: PlannedShot; reason: string } | undefined,
  steps: Steps,
  cams: readonly EditCamera[],
  closeupIdx: ReadonlyMap<string, number>,
  minMs: number,
  anySpeech: boolean,
  exchanges: readonly Exchange[],
): string {
  const cam = cams[shot.cam]!;
  const content = shotContent(steps, shot, cams);
  const speaking = [...new Set([...content.single.keys(), ...content.overlap.keys()])].sort();
  const startMs = steps.edges[shot.from]!;
  const subject = cam.speakers.length === 1 ? cam.speakers[0]! : [...closeupIdx].find(([, i]) => i === shot.cam)?.[0];
  let reason: string;
  if (subject !== undefined) {
    const spoke = content.firstSpeech.get(subject);
    if (spoke === undefined)
      reason =
        speaking.length > 0
          ? `${subject} listens (close-up)`
          : anySpeech
            ? `pause (close-up)`
            : `nobody speaks (close-up)`;
    else {
      const relief = prev !== undefined && prev.reason.startsWith('monologue relief') && cams[prev.shot.cam] !== cam;
      reason = relief ? `${subject} continues (close-up)` : `${subject} speaks (close-up)`;
      // Started before the speaker's first word: a pre-roll into the pause (or over the end of
      // someone else's turn) so that a short turn still gets a close-up of the minimum length.
      const lead = spoke - startMs;
      if (!relief && prev !== undefined && lead >= STEP_MS)
        reason = `${subject} speaks (close-up, pre-roll ${secs(lead)})`;
    }
    const others = speaking.filter((s) => !cam.speakers.includes(s));
    const first = spoke ?? Infinity;
    const last = content.lastSpeech.get(subject) ?? -Infinity;
    const before = others.filter((o) => content.lastSpeech.get(o)! <= first);
    const after = others.filter((o) => !before.includes(o) && content.firstSpeech.get(o)! >= last);
    const during = others.filter((o) => !before.includes(o) && !after.includes(o));
    const brief = during.filter((o) => (content.single.get(o) ?? 0) + (content.overlap.get(o) ?? 0) < minMs);
    const long = during.filter((o) => !brief.includes(o));
    if (spoke !== undefined && before.length > 0) reason += `; starts over the end of ${before.join(', ')}`;
    if (spoke !== undefined && after.length > 0) reason += `; holds into the start of ${after.join(', ')}`;
    if (brief.length > 0) reason += `; backchannel ${brief.join(', ')} ignored`;
    if (long.length > 0) reason += `; holds while ${long.join(', ')} speaks`;
    return reason;
  }
  const label = cam.label;
  if (speaking.length === 0) return anySpeech ? `pause (${label})` : `nobody speaks (${label})`;
  const singles = [...content.single].filter(([, ms]) => ms > 0);
  const singleMs = singles.reduce((a, [, ms]) => a + ms, 0);
  if (content.overlapMs > 0 && content.overlapMs >= singleMs / 2) {
    const who = [...content.overlap.keys()].sort();
    return `overlap ${who.join('+')} (${label})`;
  }
  const endMs = steps.edges[shot.to]!;
  const exchange = exchanges.find((x) => x.startMs < endMs && x.endMs > startMs);
  if (exchange) return `quick exchange ${exchange.speakers.join('+')} (${label})`;
  // The speaker heard most in the shot names it; others heard alone are listed with why.
  const ranked = singles.toSorted((a, b) => b[1] - a[1]).map(([x]) => x);
  const why = (x: string): string => {
    const own = closeupIdx.get(x);
    if (own === undefined) return `${label}, no close-up`;
    if (!steps.available[own]!.subarray(shot.from, shot.to).every((v) => v === 1))
      return `${label}, close-up not recording`;
    return ranked.length > 1 ? `${label}, turn too short for a close-up` : '';
  };
  const x = ranked[0] ?? speaking[0]!;
  const others = ranked
    .slice(1)
    .map((o) => `; ${o} too (${why(o)})`)
    .join('');
  const main = why(x);
  if (main !== '') return `${x} speaks (${main})${others}`;
  return `monologue relief (${label})`;
}

/** Input of {@link planCuts}. */
export interface PlanCutsInput {
  turns: readonly Turn[];
  cameras: EditCameras;
  preset: EditPreset;
  /** The reference timeline to cover. */
  startMs: number;
  endMs: number;
  /** Footage of every video source on the reference timeline. */
  spans: readonly SourceSpan[];
  /** Removed ranges: sorted, non-overlapping, inside the timeline. */
  removedRanges: readonly TimeRange[];
  /** Soft costs (default {@link DEFAULT_CUT_COSTS}). */
  costs?: Partial<CutCosts>;
}

/**
 * The cut list of an edit, in reference time, covering `[startMs, endMs]` wherever some video
 * source has footage. Every cut carries a `reason`.
 *
 * Shot lengths (output time): every shot lasts at least `preset.minShotMs` unless the whole
 * timeline is shorter (one shot), or footage forces the switch (the camera before stops
 * recording where the shot starts, or the shot's own camera stops recording where it ends).
 * A close-up lasts at most `preset.maxShotMs` when a group shot showing its speaker records.
 */
export function planCuts(input: PlanCutsInput): Cut[] {
  const { cameras, preset } = input;
  if (!(input.endMs > input.startMs)) return [];
  const clock = new OutputClock(input.startMs, input.endMs, input.removedRanges);
  const cams = cameras.all;
  if (cams.length === 0 || clock.lengthMs <= 0) {
    // No camera shows anyone: show the first video source rather than nothing.
    const span = input.spans[0];
    if (!span) return [];
    const only = {
      startMs: input.startMs,
      endMs: input.endMs,
      sourceId: span.sourceId,
      reason: 'no camera shows a speaker (first video source)',
    };
    return cams.length === 0
      ? fitToFootage([only], cameras, input.spans, preset.minShotMs)
      : fitToFootage(
          [{ ...only, sourceId: cams[0]!.sourceId, reason: 'nothing left after silence removal' }],
          cameras,
          input.spans,
          preset.minShotMs,
        );
  }
  const segments = speechSegments(input.turns, clock);
  const steps = buildSteps(segments, cams, input.spans, clock);
  const costs: CutCosts = { ...DEFAULT_CUT_COSTS, ...input.costs };
  const exchanges = costs.quickExchanges ? quickExchanges(input.turns, clock, preset.minShotMs) : [];
  const closeupIdx = new Map<string, number>();
  for (const [speaker, cam] of cameras.closeups) {
    const i = cams.findIndex((c) => c.sourceId === cam.sourceId);
    if (i >= 0) closeupIdx.set(speaker, i);
  }
  const cost = cams.map(() => new Float64Array(steps.speakers.length));
  let ex = 0;
  const costCache = new Map<string, number[]>();
  for (let k = 0; k < steps.speakers.length; k++) {
    const mid = (steps.edges[k]! + steps.edges[k + 1]!) / 2;
    while (ex < exchanges.length && exchanges[ex]!.endMs <= mid) ex++;
    const inExchange = exchanges[ex] !== undefined && exchanges[ex]!.startMs <= mid;
    const who = inExchange ? exchanges[ex]!.speakers : steps.speakers[k]!;
    // Few distinct moments (who speaks, which cameras record): their costs are computed once.
    let key = who.join('\u0000') + '\u0001';
    for (let c = 0; c < cams.length; c++) key += steps.available[c]![k];
    let row = costCache.get(key);
    if (!row) {
      row = stepCosts(who, cams, closeupIdx, (c) => steps.available[c]![k] === 1, costs);
      costCache.set(key, row);
    }
    for (let c = 0; c < cams.length; c++) cost[c]![k] = row[c]!;
  }
  const maxMs = cams.map((cam, i) => {
    const subject = [...closeupIdx].find(([, j]) => j === i)?.[0];
    const relief = subject !== undefined ? chooseGroupShot(cameras, [subject], 'relief') : null;
    return relief && relief.sourceId !== cam.sourceId ? Math.max(preset.maxShotMs, preset.minShotMs) : Infinity;
  });
  const minMs = Math.min(preset.minShotMs, clock.lengthMs);
  const shots = optimalShots(steps, cams, cost, minMs, maxMs, costs.cut);
  const anySpeech = segments.some((s) => s.speakers.length > 0);
  const cuts: Cut[] = [];
  let prev: { shot: PlannedShot; reason: string } | undefined;
  for (const shot of shots) {
    const reason = shotReason(shot, prev, steps, cams, closeupIdx, preset.minShotMs, anySpeech, exchanges);
    prev = { shot, reason };
    cuts.push({
      startMs: clock.toReference(steps.edges[shot.from]!),
      endMs: clock.toReference(steps.edges[shot.to]!),
      sourceId: cams[shot.cam]!.sourceId,
      reason,
    });
  }
  const first = cuts[0];
  const last = cuts.at(-1);
  if (first) first.startMs = input.startMs;
  if (last) last.endMs = input.endMs;
  return fitToFootage(
    cuts.filter((c) => c.endMs > c.startMs),
    cameras,
    input.spans,
    preset.minShotMs,
  );
}
