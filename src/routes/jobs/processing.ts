/**
 * Processing: startProcessing (POST /jobs/{id}/process) checks the sources and starts the
 * sync stage.
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import { LIMITS, type JobStatus, type StartProcessingResponse } from '../../contract/types.ts';
import { requireObject } from '../../contract/validate.ts';
import { applyTrigger, enqueueOrFail } from '../../jobs/transitions.ts';
import { updateJob } from '../../store/jobs.ts';
import { readJson } from '../http.ts';
import { diarizeSourceIdsOf, ownedJob, videoIds, type JobOperation, type OperationResult } from './owned.ts';

/** startProcessing: POST /jobs/{id}/process. */
export const startProcessing: JobOperation = async (ctx, accountId, jobId, request) => {
  const job = await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request), true);
  const already = (status: JobStatus): OperationResult => ({
    body: { jobId, status, alreadyProcessed: true } satisfies StartProcessingResponse,
  });
  if (job.status !== 'created' && job.status !== 'uploading') {
    if (job.processingStarted && (job.status === 'syncing' || job.status === 'diarizing')) return already(job.status);
    throw ApiError.invalidStatus(job.status, 'startProcessing (the job must be created or uploading)');
  }
  const diarizeSourceIds = diarizeSourceIdsOf(body, job);
  if (job.sources.length === 0) throw ApiError.badRequest('the job has no sources');
  for (const source of job.sources) {
    if (source.sizeError) {
      throw ApiError.withCode(source.sizeError.code, source.sizeError.message, {
        sourceId: source.id,
        ...(source.sizeError.code === 'FILE_TOO_LARGE' ? { maxBytes: LIMITS.maxFileSize } : {}),
      });
    }
  }
  const videos = videoIds(job).length;
  if (videos < LIMITS.minVideoSources) {
    throw ApiError.withCode(
      'NOT_ENOUGH_VIDEOS',
      `processing needs at least ${LIMITS.minVideoSources} video sources; the job has ${videos}`,
    );
  }
  const pending = job.sources.filter((s) => s.fileId === null).map((s) => s.id);
  if (pending.length > 0) {
    throw ApiError.withCode('SOURCES_PENDING', `${pending.length} source(s) are not uploaded yet`, {
      pendingSourceIds: pending,
    });
  }
  const started = await updateJob(ctx.db, jobId, (current) => {
    if (current.status !== 'created' && current.status !== 'uploading') return { job: null, result: current.status };
    applyTrigger(current, 'startProcessing', ctx.now());
    current.processingStarted = true;
    current.diarizeSourceIds = diarizeSourceIds;
    current.stageAttempts = { syncing: 0 };
    return { job: current, result: null };
  });
  if (started === undefined) throw ApiError.notFound(`job ${jobId} not found`);
  if (started !== null) return already(started);
  if (!(await enqueueOrFail(ctx, jobId, 'syncing')))
    throw new ApiError(502, 'the sync stage could not be started; the job is marked failed');
  return { body: { jobId, status: 'syncing' } satisfies StartProcessingResponse };
};
