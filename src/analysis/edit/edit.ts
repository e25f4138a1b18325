/**
 * The edit of a job in one call: silence removal, then cuts on the tightened conversation.
 * The route handler calls {@link planEdit} for submitSpeakerMapping and recutJob, and
 * {@link checkCutList} / {@link checkSilenceSettings} to validate what a person sends.
 *
 * @module
 */

import type {
  CameraMap,
  Cut,
  JobSource,
  PresetId,
  ResolvedSilenceSettings,
  TimeRange,
  Track,
  Turn,
} from '../../contract/types.ts';
import { referenceTimeline, totalMs } from './cut-rules.ts';
import type { MixMeasures } from '../speech/energy.ts';
import { editCameras } from './cuts/camera-set.ts';
import { planCuts } from './cuts/plan.ts';
import { PRESETS } from './presets.ts';
import { findRemovedRanges } from './silence.ts';

export { CUT_LIST_RULES, checkCutList, referenceTimeline, type CutListViolation } from './cut-rules.ts';
export { envelopeDb, findQuietRanges, measureMix, type MixMeasures, type QuietRangeOptions } from '../speech/energy.ts';
export { DEFAULT_PRESET_ID, PRESETS, type EditPreset } from './presets.ts';
export { checkSilenceSettings, resolveSilence } from './silence.ts';

/**
 * Input of {@link planEdit}. What speaker detection measured of the mix comes as
 * {@link MixMeasures} (energy.ts), absent on jobs from before it was kept.
 */
export interface PlanEditInput extends Partial<MixMeasures> {
  turns: Turn[];
  tracks: Track[];
  sources: JobSource[];
  cameraMap: CameraMap | null;
  presetId: PresetId;
  silence: ResolvedSilenceSettings;
}

/**
 * The planner's settings a person chooses (createJob, recutJob): the job record keeps them
 * under these names (it extends this type), and `replanEdit` (src/jobs/replan.ts) takes
 * them from the job unless the caller overrides them. A new setting is an optional field of
 * {@link PlanEditInput} named here too.
 */
export type PlanSettings = Pick<PlanEditInput, 'presetId' | 'silence'>;

/** Result of {@link planEdit}. */
export interface PlannedEdit {
  /** Passes {@link checkCutList} together with `removedRanges`. */
  cuts: Cut[];
  /** Spans the render skips, in reference time: sorted, non-overlapping. */
  removedRanges: TimeRange[];
  /** Total length of `removedRanges`: how much shorter the output becomes. */
  savedMs: number;
}

/**
 * Plans the edit of a job: removed ranges from the silence settings, then cuts that follow the
 * speaker on the tightened conversation. The timeline is the span of the job's video sources
 * (see docs/decisions/004-cut-list-rules.md); when no video source has a duration yet it ends
 * at the last turn.
 *
 * @example
 * const { cuts, removedRanges, savedMs } = planEdit({
 *   turns: job.turns, tracks: job.tracks, sources: job.sources, cameraMap: job.camera_map,
 *   presetId: 'balanced', silence: resolveSilence(job.silence), quietRanges,
 * });
 */
export function planEdit(input: PlanEditInput): PlannedEdit {
  const timeline = referenceTimeline(input.sources);
  const startMs = timeline.startMs;
  let endMs = timeline.endMs;
  if (endMs === null) {
    endMs = startMs;
    for (const t of input.turns) if (Number.isFinite(t.endMs)) endMs = Math.max(endMs, t.endMs);
  }
  if (timeline.spans.length === 0 || !(endMs > startMs)) return { cuts: [], removedRanges: [], savedMs: 0 };
  const preset = PRESETS[input.presetId];
  const turns = input.turns.filter(
    (t) => Number.isFinite(t.startMs) && Number.isFinite(t.endMs) && t.endMs > t.startMs,
  );
  const removedRanges = findRemovedRanges(turns, { startMs, endMs }, input.silence, input.quietRanges ?? []);
  const cameras = editCameras(input.tracks, new Set(timeline.spans.map((s) => s.sourceId)), input.cameraMap);
  const cuts = planCuts({ turns, cameras, preset, startMs, endMs, spans: timeline.spans, removedRanges });
  return { cuts, removedRanges, savedMs: totalMs(removedRanges) };
}
