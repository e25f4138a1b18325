/**
 * The one place a stored job becomes the cut planner's input. The service's mapping decision
 * (generateCutsInPlace) and recutJob (POST /jobs/{id}/recut) both plan through
 * {@link replanEdit}. The job record holds every {@link PlanEditInput} field under its own name
 * (it extends `PlanSettings` and `MixMeasures`), so an input added there reaches the planner
 * without a line here.
 *
 * @module
 */
import { planEdit, type PlanEditInput, type PlannedEdit, type PlanSettings } from '../analysis/edit/edit.ts';
import type { JobRecord } from '../store/db.ts';

/** What a caller plans with instead of the job's stored value: new tracks, or other planner settings. */
export type ReplanOverrides = Partial<PlanSettings & Pick<PlanEditInput, 'tracks'>>;

/**
 * Plans the edit of `job` from what it holds (turns, sources, camera map, what speaker
 * detection measured of the mix) and its tracks and planner settings (preset, silence), or the
 * `overrides` given for them. The job is not changed.
 *
 * @example
 * const plan = replanEdit(job, { presetId: 'dynamic' });
 * job.cuts = plan.cuts;
 * job.removedRanges = plan.removedRanges;
 */
export function replanEdit(job: JobRecord, overrides: ReplanOverrides = {}): PlannedEdit {
  // A type error here means the job record lacks a planner input: add it to PlanSettings or MixMeasures.
  const held: PlanEditInput = job;
  return planEdit({ ...held, ...overrides });
}
