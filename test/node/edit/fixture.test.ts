/**
 * planEdit on the tiny fixture's ground truth (engineer D's generator), 20 s and 90 s: the true
 * turns and the expected camera map, as if speaker detection and camera mapping were perfect.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { PRESET_IDS, type CameraMap, type Cut, type JobSource } from '../../../src/contract/types.ts';
import { keptMs } from '../../../src/analysis/edit/cut-rules.ts';
import { checkCutList, resolveSilence } from '../../../src/analysis/edit/edit.ts';
import { PRESETS } from '../../../src/analysis/edit/presets.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../../support/fixtures.ts';
import { closeupBoundCuts, closeupShown } from './closeup.ts';
import { jobOfTruth, planOfTruth } from './truth-job.ts';

const VARIANTS = [
  { name: 'tiny 20 s', options: {} },
  { name: 'tiny 90 s', options: { seconds: 90, width: 320, height: 180 } },
] as const;
const truths = new Map<string, Truth>();
beforeAll(async () => {
  for (const v of VARIANTS) truths.set(v.name, (await ensureFixture('tiny', v.options)).truth);
}, FIXTURE_TIMEOUT_MS);

/** Share of single-speaker speech, while that speaker's close-up records, shown on that close-up. */
function closeupShare(
  truth: Truth,
  sources: readonly JobSource[],
  cameraMap: CameraMap,
  cuts: readonly Cut[],
  removed: Parameters<typeof closeupShown>[4],
): { share: number; totalMs: number } {
  const { onCloseupMs, totalMs } = closeupShown(truth, sources, cameraMap, cuts, removed);
  return { share: onCloseupMs / totalMs, totalMs };
}

/**
 * Cuts shorter than the preset's minimum (output time), other than the exceptions of
 * docs/decisions/004-cut-list-rules.md: a single-cut edit, or a switch forced by footage (the
 * cut starts where the camera before stops recording, or ends where its own camera stops).
 */
function shortCuts(
  cuts: readonly Cut[],
  sources: readonly JobSource[],
  removed: Parameters<typeof keptMs>[2],
  minMs: number,
): Cut[] {
  if (cuts.length <= 1) return [];
  const endOf = (id: string): number => {
    const s = sources.find((x) => x.id === id)!;
    return (s.offsetMs ?? 0) + (s.durationMs ?? Infinity);
  };
  return cuts.filter((c, i) => {
    if (keptMs(c.startMs, c.endMs, removed) >= minMs - 1e-6) return false;
    const prev = cuts[i - 1];
    const forcedIn = prev !== undefined && Math.abs(endOf(prev.sourceId) - c.startMs) <= 1;
    const forcedOut = i < cuts.length - 1 && Math.abs(endOf(c.sourceId) - c.endMs) <= 1;
    return !forcedIn && !forcedOut;
  });
}

describe('planEdit on the tiny fixture truth', () => {
  for (const variant of VARIANTS) {
    for (const presetId of PRESET_IDS) {
      test(`${variant.name}, ${presetId}: close-up share and shot lengths`, () => {
        const truth = truths.get(variant.name)!;
        const job = jobOfTruth(truth);
        const { sources, tracks, cameraMap } = job;
        const plan = planOfTruth(truth, job, presetId, resolveSilence(null));
        expect(checkCutList(plan.cuts, { sources, removedRanges: plan.removedRanges })).toBeNull();
        const { share, totalMs } = closeupShare(truth, sources, cameraMap, plan.cuts, plan.removedRanges);
        console.log(
          `${variant.name} ${presetId}: ${plan.cuts.length} cuts, close-up share ${(share * 100).toFixed(1)} % of ${(totalMs / 1000).toFixed(1)} s`,
        );
        // The best share the hard constraints allow: the same planner scoring nothing but the
        // close-up share (every miss of a speaker with a close-up costs 1, nothing else counts).
        const best = closeupBoundCuts(truth.turns, sources, tracks, cameraMap, presetId);
        const bound = closeupShare(truth, sources, cameraMap, best, []).share;
        console.log(`  best possible under the constraints: ${(bound * 100).toFixed(1)} %`);
        expect(totalMs).toBeGreaterThan(5000);
        // Issue 8: at least 90 % on every preset; the default costs give up a little of the
        // bound to keep a speaker without a close-up on a group shot and to avoid cuts.
        expect(share).toBeGreaterThanOrEqual(0.9);
        expect(share).toBeLessThanOrEqual(bound + 0.005);
        expect(shortCuts(plan.cuts, sources, plan.removedRanges, PRESETS[presetId].minShotMs)).toEqual([]);
        // The frozen camera (no speakers) is never used.
        expect(plan.cuts.some((c) => c.sourceId === 'cam5.mp4')).toBe(false);
      });
    }
  }

  test('tighten keeps the laughter and shortens the 2.1 s pause around it only where quiet', () => {
    const truth = truths.get('tiny 20 s')!;
    const job = jobOfTruth(truth);
    const { sources } = job;
    const laugh = truth.nonSpeech[0]!;
    // Quiet everywhere except speech and the laughter: what a perfect energy analysis reports.
    const busy = [...truth.turns, ...truth.nonSpeech].toSorted((a, b) => a.startMs - b.startMs);
    const quietRanges = [];
    let t = 0;
    for (const b of busy) {
      if (b.startMs > t) quietRanges.push({ startMs: t, endMs: b.startMs });
      t = Math.max(t, b.endMs);
    }
    quietRanges.push({ startMs: t, endMs: truth.durationMs });
    const plan = planOfTruth(truth, job, 'balanced', resolveSilence({ mode: 'tighten' }), quietRanges);
    expect(checkCutList(plan.cuts, { sources, removedRanges: plan.removedRanges })).toBeNull();
    expect(plan.removedRanges.length).toBeGreaterThan(0);
    for (const r of plan.removedRanges) expect(r.endMs <= laugh.startMs || r.startMs >= laugh.endMs).toBe(true);
  });
});
