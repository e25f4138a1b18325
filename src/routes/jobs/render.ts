/**
 * The output: startRender (POST /jobs/{id}/render) and approveJob (POST /jobs/{id}/approve).
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import { transition } from '../../contract/machine.ts';
import type { JobStatusResponse } from '../../contract/types.ts';
import type { ServiceContext } from '../../jobs/context.ts';
import { eventOutputUrl } from '../../jobs/links.ts';
import { applyTrigger, enqueueOrFail, startRenderInPlace } from '../../jobs/transitions.ts';
import { updateJob } from '../../store/jobs.ts';
import { ownedJob, type OperationResult } from './owned.ts';

/** startRender: POST /jobs/{id}/render. */
export async function startRender(ctx: ServiceContext, accountId: string, jobId: string): Promise<OperationResult> {
  await ownedJob(ctx, accountId, jobId);
  const done = await updateJob(ctx.db, jobId, (job) => {
    if (!transition(job.status, 'startRender'))
      throw ApiError.invalidStatus(job.status, 'startRender (the job must be ready or complete)');
    if (job.cuts.length === 0) throw ApiError.withCode('NO_CUTS', 'the job has no cuts to render');
    startRenderInPlace(job, ctx.now());
    return { job, result: true };
  });
  if (!done) throw ApiError.notFound(`job ${jobId} not found`);
  if (!(await enqueueOrFail(ctx, jobId, 'rendering')))
    throw new ApiError(502, 'the render could not be started; the job is marked failed');
  return { body: { jobId, status: 'rendering' } satisfies JobStatusResponse };
}

/** approveJob: POST /jobs/{id}/approve. */
export async function approveJob(ctx: ServiceContext, accountId: string, jobId: string): Promise<OperationResult> {
  const before = await ownedJob(ctx, accountId, jobId);
  if (before.status !== 'complete' || before.outputFileId === null || before.renderedAt === null) {
    throw ApiError.invalidStatus(before.status, 'approveJob (the job must be complete)');
  }
  const outputUrl = await eventOutputUrl(ctx, before, before.outputFileId, before.renderedAt);
  const done = await updateJob(ctx.db, jobId, (job) => {
    if (job.status !== 'complete' || job.outputFileId !== before.outputFileId)
      throw ApiError.invalidStatus(job.status, 'approveJob (the job must be complete)');
    const event = applyTrigger(job, 'approve', ctx.now(), () => ({ outputUrl }));
    return { job, events: event ? [event] : [], result: true };
  });
  if (!done) throw ApiError.notFound(`job ${jobId} not found`);
  return { body: { jobId, status: 'approved' } satisfies JobStatusResponse };
}
