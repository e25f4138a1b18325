/**
 * planEdit on the tiny fixture's ground truth (engineer D's generator): the true turns and the
 * expected camera map, as if speaker detection and camera mapping were perfect.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { CameraMap, JobSource, Track } from '../../../src/contract/types.ts';
import { checkCutList, planEdit, resolveSilence } from '../../../src/analysis/edit.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../../support/fixtures.ts';
import { singleSpeakerSpans, shownMs } from './measure.ts';

let truth: Truth;
beforeAll(async () => {
  ({ truth } = await ensureFixture('tiny'));
}, FIXTURE_TIMEOUT_MS);

function job(): { sources: JobSource[]; tracks: Track[]; cameraMap: CameraMap } {
  const sources: JobSource[] = truth.sources.map((s) => ({
    id: s.file,
    label: s.label,
    kind: s.kind,
    ext: s.file.split('.').pop() ?? '',
    offsetMs: s.offsetMs,
    // The reference span it covers (the file's own length differs by its drift).
    durationMs: s.endRefMs - s.offsetMs,
  }));
  const cameras = truth.expectedCameraMap.cameras.map((c) => ({
    sourceId: c.file,
    kind: c.kind,
    confidence: c.speakers.length > 0 ? ('high' as const) : ('none' as const),
    speakers: c.speakers,
  }));
  const cameraMap: CameraMap = { version: 1, speakers: truth.expectedCameraMap.speakers, unassignedSpeakers: [], droppedSpeakers: [], cameras };
  return { sources, tracks: cameras.map((c) => ({ sourceId: c.sourceId, speakers: c.speakers })), cameraMap };
}

describe('planEdit on the tiny fixture truth', () => {
  // The tiny conversation is 20 s of mostly short turns, and spk1's close-up starts recording
  // 0.24 s before spk1's first turn ends. Measured: dynamic 96.8 %, balanced 89.9 % (lost: a
  // 0.53 s isolated turn under the 2.5 s minimum, and the 0.24 s sliver, shown on the wide
  // rather than as a 1.2 s flash of the close-up), relaxed 78.9 % (4 s minimum: the last
  // exchange goes to the wide). Thresholds sit just under the measured figures so a regression
  // shows; the 90 % criterion itself is asserted on the 165 s scripted conversation.
  for (const [presetId, minShare] of [['relaxed', 0.75], ['balanced', 0.88], ['dynamic', 0.9]] as const) {
    test(`${presetId}: ≥ ${minShare * 100} % of single-speaker speech (while the close-up records) is on that close-up`, () => {
      const { sources, tracks, cameraMap } = job();
      const plan = planEdit({ turns: truth.turns, tracks, sources, cameraMap, presetId, silence: resolveSilence(null) });
      expect(checkCutList(plan.cuts, { sources, removedRanges: plan.removedRanges })).toBeNull();
      const closeupOf = new Map(cameraMap.cameras.filter((c) => c.kind === 'closeup').map((c) => [c.speakers[0]!, c.sourceId]));
      let total = 0;
      let onCloseup = 0;
      for (const span of singleSpeakerSpans(truth.turns, plan.removedRanges)) {
        const cam = sources.find((s) => s.id === closeupOf.get(span.speaker));
        if (!cam) continue; // spk3 has no close-up in this fixture
        // Only the part during which the close-up camera was recording can show it.
        const a = Math.max(span.startMs, cam.offsetMs ?? 0);
        const b = Math.min(span.endMs, (cam.offsetMs ?? 0) + (cam.durationMs ?? 0));
        if (b <= a) continue;
        total += b - a;
        onCloseup += shownMs(plan.cuts, cam.id, { startMs: a, endMs: b });
      }
      const share = onCloseup / total;
      console.log(`tiny ${presetId}: ${plan.cuts.length} cuts, close-up share ${(share * 100).toFixed(1)} % of ${(total / 1000).toFixed(1)} s`);
      expect(total).toBeGreaterThan(5000);
      expect(share).toBeGreaterThanOrEqual(minShare);
      // The frozen camera (no speakers) is never used.
      expect(plan.cuts.some((c) => c.sourceId === 'cam5.mp4')).toBe(false);
    });
  }

  test('tighten keeps the laughter and shortens the 2.1 s pause around it only where quiet', () => {
    const { sources, tracks, cameraMap } = job();
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
    const plan = planEdit({ turns: truth.turns, tracks, sources, cameraMap, presetId: 'balanced', silence: resolveSilence({ mode: 'tighten' }), quietRanges });
    expect(checkCutList(plan.cuts, { sources, removedRanges: plan.removedRanges })).toBeNull();
    expect(plan.removedRanges.length).toBeGreaterThan(0);
    for (const r of plan.removedRanges) expect(r.endMs <= laugh.startMs || r.startMs >= laugh.endMs).toBe(true);
  });
});
