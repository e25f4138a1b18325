/**
 * The cut list: recutJob (POST /jobs/{id}/recut, a new plan from a preset) and updateCuts
 * (PATCH /jobs/{id}/cuts, the caller's own cuts).
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import type { RecutResponse } from '../../contract/types.ts';
import { parseCuts, parsePresetId, parseRanges, parseSilence, requireObject } from '../../contract/validate.ts';
import { replanEdit } from '../../jobs/replan.ts';
import { applyTrigger } from '../../jobs/transitions.ts';
import { updateJob } from '../../store/jobs.ts';
import { readJson } from '../http.ts';
import { checkCuts, ownedJob, requireEditable, type JobOperation } from './owned.ts';

/** recutJob: POST /jobs/{id}/recut. */
export const recutJob: JobOperation = async (ctx, accountId, jobId, request) => {
  await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request));
  const presetId = parsePresetId(body['presetId']);
  const silence = body['silence'] === undefined ? null : parseSilence(body['silence']);
  const result = await updateJob(ctx.db, jobId, (job) => {
    requireEditable(job, 'recutJob');
    const resolved = silence ?? job.silence;
    const plan = replanEdit(job, { presetId, silence: resolved });
    applyTrigger(job, 'recut', ctx.now());
    job.presetId = presetId;
    job.silence = resolved;
    job.cuts = plan.cuts;
    job.removedRanges = plan.removedRanges;
    const response: RecutResponse = {
      jobId,
      presetId,
      cuts: plan.cuts,
      removedRanges: plan.removedRanges,
      savedMs: plan.savedMs,
      silence: resolved,
      success: true,
    };
    return { job, result: response };
  });
  if (!result) throw ApiError.notFound(`job ${jobId} not found`);
  return { body: result };
};

/** updateCuts: PATCH /jobs/{id}/cuts. */
export const updateCuts: JobOperation = async (ctx, accountId, jobId, request) => {
  await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request));
  const cuts = body['cuts'] === undefined ? null : parseCuts(body['cuts']);
  const removedRanges = body['removedRanges'] === undefined ? null : parseRanges(body['removedRanges']);
  if (cuts === null && removedRanges === null) throw ApiError.badRequest('cuts or removedRanges is required');
  const done = await updateJob(ctx.db, jobId, (job) => {
    requireEditable(job, 'updateCuts');
    checkCuts(job, cuts ?? job.cuts, removedRanges ?? job.removedRanges ?? []);
    applyTrigger(job, 'updateCuts', ctx.now());
    if (cuts !== null) job.cuts = cuts;
    if (removedRanges !== null) job.removedRanges = removedRanges;
    return { job, result: true };
  });
  if (!done) throw ApiError.notFound(`job ${jobId} not found`);
  return { body: { jobId, success: true } };
};
