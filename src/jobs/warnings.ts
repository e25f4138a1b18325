/**
 * A job's `warnings` written to the store: what the stage reporter records when a stage took a
 * fallback, and what routes record when they skip a check (createJob's storage estimate).
 *
 * @module
 */
import { addWarning, type NewWarning } from '../contract/warnings.ts';
import { updateJob } from '../store/jobs.ts';
import type { ServiceContext } from './context.ts';

/**
 * Adds warnings to a job's `warnings` (once per code and source) in one transaction; a deleted
 * job is left alone.
 */
export async function addJobWarnings(
  ctx: ServiceContext,
  jobId: string,
  warnings: readonly NewWarning[],
): Promise<void> {
  if (warnings.length === 0) return;
  await updateJob(ctx.db, jobId, (job) => {
    const now = ctx.now();
    const before = job.warnings ?? [];
    const after = warnings.reduce((list, warning) => addWarning(list, warning, now), before);
    if (after === before) return { job: null, result: undefined };
    job.warnings = after;
    job.updatedAt = now;
    return { job, result: undefined };
  });
}
