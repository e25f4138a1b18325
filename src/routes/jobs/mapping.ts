/**
 * The speaker mapping: submitSpeakerMapping (POST /jobs/{id}/tracks), first submission or a
 * correction sent with cuts.
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import type { SubmitSpeakerMappingResponse, Track } from '../../contract/types.ts';
import { parseCuts, parseRanges, parseTracks, requireObject } from '../../contract/validate.ts';
import { reviewUrl } from '../../jobs/links.ts';
import {
  applyTrigger,
  enqueueOrFail,
  generateCutsInPlace,
  noteUnusedCameras,
  startRenderInPlace,
} from '../../jobs/transitions.ts';
import type { JobRecord } from '../../store/db.ts';
import { updateJob } from '../../store/jobs.ts';
import { canonicalJson, readJson } from '../http.ts';
import { checkCuts, ownedJob, videoIds, type JobOperation } from './owned.ts';

function sameTracks(a: readonly Track[], b: readonly Track[]): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function checkTracks(job: JobRecord, tracks: Track[]): void {
  const videos = videoIds(job);
  tracks.forEach((track, i) => {
    if (!videos.includes(track.sourceId)) {
      throw ApiError.withCode(
        'UNKNOWN_SOURCE',
        `tracks[${i}].sourceId is not a video source of the job: ${track.sourceId}`,
        { sourceId: track.sourceId },
      );
    }
  });
  if (job.speakers.length > 0 && tracks.every((t) => t.speakers.length === 0)) {
    throw ApiError.withCode(
      'EMPTY_MAPPING',
      `speakers were detected (${job.speakers.join(', ')}) but the mapping puts nobody on any camera`,
    );
  }
}

/** submitSpeakerMapping: POST /jobs/{id}/tracks. */
export const submitSpeakerMapping: JobOperation = async (ctx, accountId, jobId, request) => {
  const before = await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request));
  const tracks = parseTracks(body['tracks']);
  const cuts = body['cuts'] === undefined ? null : parseCuts(body['cuts']);
  const removedRanges = body['removedRanges'] === undefined ? null : parseRanges(body['removedRanges']);
  const link = await reviewUrl(ctx, before.apiBase, before);
  const outcome = await updateJob(ctx.db, jobId, (job) => {
    const now = ctx.now();
    if (job.status === 'mapping' && job.mappedBy === null) {
      checkTracks(job, tracks);
      generateCutsInPlace(job, tracks, now);
      job.mappedBy = 'client';
      const event = applyTrigger(job, 'submitMapping', now, () => ({ reviewUrl: link }));
      const render = !job.review && job.cuts.length > 0;
      if (render) startRenderInPlace(job, now);
      return { job, events: event ? [event] : [], result: { cuts: job.cuts, render } };
    }
    if (job.status === 'ready' || job.status === 'complete') {
      if (cuts === null) {
        // Sending the mapping in force again is a second submission; changing it needs cuts.
        if (sameTracks(tracks, job.tracks))
          throw ApiError.invalidStatus(job.status, 'submitSpeakerMapping (the mapping was already submitted)');
        throw ApiError.withCode(
          'CUTS_REQUIRED',
          'cuts must be sent with tracks to change the mapping of a job that has cuts',
        );
      }
      checkTracks(job, tracks);
      checkCuts(job, cuts, removedRanges ?? job.removedRanges ?? []);
      applyTrigger(job, 'correctMapping', now);
      job.tracks = tracks;
      noteUnusedCameras(job, now);
      job.cuts = cuts;
      if (removedRanges !== null) job.removedRanges = removedRanges;
      job.mappedBy = 'client';
      return { job, result: { cuts: job.cuts, render: false } };
    }
    throw ApiError.invalidStatus(job.status, 'submitSpeakerMapping');
  });
  if (!outcome) throw ApiError.notFound(`job ${jobId} not found`);
  if (outcome.render) await enqueueOrFail(ctx, jobId, 'rendering');
  return { body: { jobId, cuts: outcome.cuts, success: true } satisfies SubmitSpeakerMappingResponse };
};
