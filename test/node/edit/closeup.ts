/**
 * The close-up share of an edit on a generated fixture's ground truth, and the best share the
 * hard rules allow. Shared by test/node/edit/fixture.test.ts and eval/cuts.ts.
 */
import type { CameraMap, Cut, JobSource, PresetId, TimeRange, Track, Turn } from '../../../src/contract/types.ts';
import { referenceTimeline } from '../../../src/analysis/edit/cut-rules.ts';
import { editCameras } from '../../../src/analysis/edit/cuts/camera-set.ts';
import { planCuts } from '../../../src/analysis/edit/cuts/plan.ts';
import { PRESETS } from '../../../src/analysis/edit/presets.ts';
import type { Truth } from '../../support/fixtures.ts';
import { shownMs, singleSpeakerSpans } from './measure.ts';

/**
 * Milliseconds of single-speaker speech (outside `removed`), while that speaker's close-up
 * records, and how many of them `cuts` show on that close-up. Speakers without a close-up are
 * left out. The share is `onCloseupMs / totalMs`.
 */
export function closeupShown(
  truth: Truth,
  sources: readonly JobSource[],
  cameraMap: CameraMap,
  cuts: readonly Cut[],
  removed: readonly TimeRange[],
): { onCloseupMs: number; totalMs: number } {
  const closeupOf = new Map(
    cameraMap.cameras.filter((c) => c.kind === 'closeup').map((c) => [c.speakers[0]!, c.sourceId]),
  );
  let total = 0;
  let onCloseup = 0;
  for (const span of singleSpeakerSpans(truth.turns, removed)) {
    const cam = sources.find((s) => s.id === closeupOf.get(span.speaker));
    if (!cam) continue; // a speaker without a close-up (spk3 in the tiny fixture)
    // Only the part during which the close-up camera was recording can show it.
    const a = Math.max(span.startMs, cam.offsetMs ?? 0);
    const b = Math.min(span.endMs, (cam.offsetMs ?? 0) + (cam.durationMs ?? 0));
    if (b <= a) continue;
    total += b - a;
    onCloseup += shownMs(cuts, cam.id, { startMs: a, endMs: b });
  }
  return { onCloseupMs: onCloseup, totalMs: total };
}

/**
 * The cuts that give the best close-up share the hard rules allow: the same planner scoring
 * nothing but the close-up share (every miss of a speaker with a close-up costs 1, nothing else
 * counts), with nothing removed. Measure them with {@link closeupShown} and `removed` empty.
 */
export function closeupBoundCuts(
  turns: readonly Turn[],
  sources: readonly JobSource[],
  tracks: readonly Track[],
  cameraMap: CameraMap,
  presetId: PresetId,
): Cut[] {
  const timeline = referenceTimeline(sources);
  return planCuts({
    turns,
    cameras: editCameras(tracks, new Set(timeline.spans.map((s) => s.sourceId)), cameraMap),
    preset: PRESETS[presetId],
    startMs: timeline.startMs,
    endMs: timeline.endMs!,
    spans: timeline.spans,
    removedRanges: [],
    costs: { cut: 1, missOnGroup: 1, missElsewhere: 1, noCloseupMiss: 0, quickExchanges: false },
  });
}
