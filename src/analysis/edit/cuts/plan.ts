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
 * The pieces live beside this module: camera-set.ts, output-clock.ts, timeline.ts, costs.ts,
 * shot-planner.ts, footage.ts and reasons.ts.
 *
 * @module
 */

import type { Cut, TimeRange, Turn } from '../../../contract/types.ts';
import type { SourceSpan } from '../cut-rules.ts';
import type { EditPreset } from '../presets.ts';
import { chooseGroupShot, type EditCamera, type EditCameras } from './camera-set.ts';
import { DEFAULT_CUT_COSTS, stepCosts, type CutCosts } from './costs.ts';
import { fitToFootage } from './footage.ts';
import { OutputClock } from './output-clock.ts';
import { shotReason } from './reasons.ts';
import { optimalShots, type PlannedShot } from './shot-planner.ts';
import { buildSteps, holdOwnPauses, quickExchanges, speechSegments, type Exchange, type Steps } from './timeline.ts';

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
  if (cams.length === 0 || clock.lengthMs <= 0) return fallbackCuts(input);
  // Shots are planned on turns whose own short pauses are held (silence removal keeps the real turns).
  const turns = holdOwnPauses(input.turns);
  const segments = speechSegments(turns, clock);
  const steps = buildSteps(segments, cams, input.spans, clock);
  const costs: CutCosts = { ...DEFAULT_CUT_COSTS, ...input.costs };
  const exchanges = costs.quickExchanges ? quickExchanges(turns, clock, preset.minShotMs) : [];
  const closeupIdx = new Map<string, number>();
  for (const [speaker, cam] of cameras.closeups) {
    const i = cams.findIndex((c) => c.sourceId === cam.sourceId);
    if (i >= 0) closeupIdx.set(speaker, i);
  }
  const cost = costMatrix(steps, cams, closeupIdx, exchanges, costs);
  const maxMs = maxShotLengths(cameras, closeupIdx, preset);
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

/**
 * The cut list when there is nothing to plan: no camera shows anyone (the first video source),
 * or nothing is left after silence removal (the first camera).
 */
function fallbackCuts(input: PlanCutsInput): Cut[] {
  const { cameras, preset } = input;
  const cams = cameras.all;
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

/** cost[c][k]: the cost per millisecond of showing camera c during step k (quick exchanges count as overlaps). */
function costMatrix(
  steps: Steps,
  cams: readonly EditCamera[],
  closeupIdx: ReadonlyMap<string, number>,
  exchanges: readonly Exchange[],
  costs: CutCosts,
): Float64Array[] {
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
  return cost;
}

/** The longest shot per camera (ms): a close-up's maximum where a group shot can relieve it, else unbounded. */
function maxShotLengths(cameras: EditCameras, closeupIdx: ReadonlyMap<string, number>, preset: EditPreset): number[] {
  return cameras.all.map((cam, i) => {
    const subject = [...closeupIdx].find(([, j]) => j === i)?.[0];
    const relief = subject !== undefined ? chooseGroupShot(cameras, [subject], 'relief') : null;
    return relief && relief.sourceId !== cam.sourceId ? Math.max(preset.maxShotMs, preset.minShotMs) : Infinity;
  });
}
