/**
 * The cut list: recutJob (POST /jobs/{id}/recut, a new plan from a preset) and updateCuts
 * (PATCH /jobs/{id}/cuts, the caller's own cuts, and additively the gains per source in
 * `audio.gains`, which the render applies).
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import type { RecutResponse } from '../../contract/types.ts';
import {
  parseAudioEdit,
  parseCuts,
  parsePresetId,
  parseRanges,
  parseSilence,
  requireObject,
} from '../../contract/validate.ts';
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
  const audio = body['audio'];
  if (cuts === null && removedRanges === null && audio === undefined)
    throw ApiError.badRequest('cuts, removedRanges or audio is required');
  const done = await updateJob(ctx.db, jobId, (job) => {
    requireEditable(job, 'updateCuts');
    // Checked against the job's sources before anything is changed: a bad gain changes nothing.
    const edit =
      audio === undefined
        ? null
        : parseAudioEdit(
            audio,
            job.sources.map((s) => s.id),
          );
    checkCuts(job, cuts ?? job.cuts, removedRanges ?? job.removedRanges ?? []);
    applyTrigger(job, 'updateCuts', ctx.now());
    if (cuts !== null) job.cuts = cuts;
    if (removedRanges !== null) job.removedRanges = removedRanges;
    if (edit !== null) job.audioGains = edit.gains;
    return { job, result: true };
  });
  if (!done) throw ApiError.notFound(`job ${jobId} not found`);
  return { body: { jobId, success: true } };
};
