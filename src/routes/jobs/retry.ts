/**
 * Retrying a failed job: retryJob (POST /jobs/{id}/retry) restarts the stage it failed at.
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import { isRetryableStage, transition } from '../../contract/machine.ts';
import type { JobStatusResponse } from '../../contract/types.ts';
import { requireObject } from '../../contract/validate.ts';
import { enqueueOrFail } from '../../jobs/transitions.ts';
import { updateJob } from '../../store/jobs.ts';
import { readJson } from '../http.ts';
import { diarizeSourceIdsOf, ownedJob, type JobOperation } from './owned.ts';

/** retryJob: POST /jobs/{id}/retry. */
export const retryJob: JobOperation = async (ctx, accountId, jobId, request) => {
  const before = await ownedJob(ctx, accountId, jobId);
  if (before.status !== 'failed')
    throw new ApiError(409, `retryJob needs a failed job; the job is ${before.status}`, { status: before.status });
  const body = requireObject(await readJson(request), true);
  const diarizeSourceIds = diarizeSourceIdsOf(body, before);
  const target = await updateJob(ctx.db, jobId, (job) => {
    if (job.status !== 'failed')
      throw new ApiError(409, `retryJob needs a failed job; the job is ${job.status}`, { status: job.status });
    if (job.failurePermanent || !isRetryableStage(job.failedAtStatus)) {
      throw new ApiError(
        422,
        `the job failed at ${job.failedAtStatus ?? 'an unknown stage'} in a way retrying cannot fix; start a new job`,
      );
    }
    const stage = diarizeSourceIds !== null ? 'syncing' : job.failedAtStatus;
    if (!transition(job.status, 'retry', { failedAtStatus: stage }))
      throw new ApiError(422, `the job cannot be restarted at ${stage}`);
    job.status = stage;
    job.updatedAt = ctx.now();
    job.errorMessage = null;
    job.failedAtStatus = null;
    job.stageAttempts = { ...job.stageAttempts, [stage]: 0 };
    if (diarizeSourceIds !== null) job.diarizeSourceIds = diarizeSourceIds;
    if (stage === 'rendering') job.progress = 0;
    return { job, result: stage };
  });
  if (!target) throw ApiError.notFound(`job ${jobId} not found`);
  if (!(await enqueueOrFail(ctx, jobId, target)))
    throw new ApiError(502, `the ${target} stage could not be restarted; the job is marked failed`);
  return { body: { jobId, status: target } satisfies JobStatusResponse };
};
