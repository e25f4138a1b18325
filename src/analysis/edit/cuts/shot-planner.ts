/**
 * The shot planner: the optimal shot sequence over the steps of the output timeline, found by
 * dynamic programming with explicit shot durations (a semi-Markov Viterbi).
 *
 * E_c(t), the cheapest plan whose shot on camera c ends at step t, is the minimum over shot
 * starts s in a window [t - max, t - min] of B_c(s) + P_c(t) - P_c(s) (B: the best plan ending
 * at s on another camera plus a cut, P: prefix sums of camera c's cost). The window slides
 * forward, so monotone deques give each E_c(t) in amortised O(1): O(steps x cameras) overall.
 *
 * Hard constraints (minimum shot, maximum close-up, footage) are penalties far above any soft
 * cost, so they only give way where footage makes them impossible.
 *
 * @module
 */

import type { EditCamera } from './camera-set.ts';
import type { Steps } from './timeline.ts';

/** A shot under the minimum, or a close-up held over the maximum: only where footage forces it. */
const SHORT_PENALTY = 1e10;
const SPLIT_PENALTY = 1e9;

/** One shot of the optimal plan, in steps. */
export interface PlannedShot {
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
 *
 * Over 80 lines on purpose: this is the planner's hot loop (steps x cameras), and its dozen
 * per-camera arrays and deques are state shared across every step; cut into functions it
 * would pass them all around without being any clearer.
 */
export function optimalShots(
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
  return traceShots({ E, fromS, viaWaiver, prevCam, prevCamWaived });
}

/** The dynamic programme's table: E_c(t) and how each entry was reached (see {@link optimalShots}). */
interface PlanTable {
  /** E[c][t]: the cheapest plan whose shot on camera c ends at step t. */
  E: Float64Array[];
  /** fromS[c][t]: where that shot starts (-1: none). */
  fromS: Int32Array[];
  /** viaWaiver[c][t]: 1 when that shot is short because the camera before it stopped recording. */
  viaWaiver: Uint8Array[];
  /** prevCam[c][s]: the camera of the shot before a shot on c starting at s. */
  prevCam: Int32Array[];
  /** prevCamWaived[c][s]: the same, for a short shot after a camera that stopped recording. */
  prevCamWaived: Int32Array[];
}

/** The cheapest plan's shots, traced back from the table; hidden splits (same camera twice) joined. */
function traceShots(table: PlanTable): PlannedShot[] {
  const { E, fromS, viaWaiver, prevCam, prevCamWaived } = table;
  const C = E.length;
  const n = E[0]!.length - 1;
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
