/**
 * The one place a stored job becomes the cut planner's input. The service's mapping decision
 * (generateCutsInPlace) and recutJob (POST /jobs/{id}/recut) both plan through
 * {@link replanEdit}, so an input added to {@link PlanEditInput} is read from the job here once.
 *
 * @module
 */
import { planEdit, type PlanEditInput, type PlannedEdit } from '../analysis/edit.ts';
import type { JobRecord } from '../store/db.ts';

/** What a caller plans with instead of the job's stored value: new tracks, another preset or silence setting. */
export type ReplanOverrides = Partial<Pick<PlanEditInput, 'tracks' | 'presetId' | 'silence'>>;

/**
 * Plans the edit of `job` from what it holds (turns, sources, camera map, quiet ranges) and its
 * tracks, preset and silence settings, or the `overrides` given for them. The job is not changed.
 *
 * @example
 * const plan = replanEdit(job, { presetId: 'dynamic' });
 * job.cuts = plan.cuts;
 * job.removedRanges = plan.removedRanges;
 */
export function replanEdit(job: JobRecord, overrides: ReplanOverrides = {}): PlannedEdit {
  return planEdit({
    turns: job.turns,
    tracks: overrides.tracks ?? job.tracks,
    sources: job.sources,
    cameraMap: job.cameraMap,
    presetId: overrides.presetId ?? job.presetId,
    silence: overrides.silence ?? job.silence,
    ...(job.quietRanges ? { quietRanges: job.quietRanges } : {}),
  });
}
