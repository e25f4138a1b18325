/**
 * nameSpeakers (PUT /jobs/{id}/speakers, additive): the names people give the detected
 * speakers. The body holds every name in force (a PUT replaces them all). Allowed once speakers
 * are detected, in any later status; it changes no status, cut or render and sends no webhook.
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import type { NameSpeakersResponse } from '../../contract/types.ts';
import { parseSpeakerNames, requireObject } from '../../contract/validate.ts';
import { updateJob } from '../../store/jobs.ts';
import { readJson } from '../http.ts';
import { ownedJob, type JobOperation } from './owned.ts';

/** nameSpeakers: PUT /jobs/{id}/speakers with `{ names: { SPEAKER_00: 'Ana' } }`. */
export const nameSpeakers: JobOperation = async (ctx, accountId, jobId, request) => {
  await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request));
  const names = await updateJob(ctx.db, jobId, (job) => {
    if (job.speakers.length === 0)
      throw ApiError.invalidStatus(job.status, 'nameSpeakers (no speakers are detected yet)');
    const parsed = parseSpeakerNames(body['names'], job.speakers);
    job.speakerNames = parsed;
    job.updatedAt = ctx.now();
    return { job, result: parsed };
  });
  if (!names) throw ApiError.notFound(`job ${jobId} not found`);
  return { body: { jobId, speakerNames: names, success: true } satisfies NameSpeakersResponse };
};
