/**
 * The job operations of the contract (everything under `{base}/jobs`), each taking the
 * caller's account and the request and returning a Response body or throwing an ApiError.
 *
 * @module
 */
import { planEdit } from '../analysis/edit.ts';
import { checkCutList } from '../analysis/cut-rules.ts';
import { ApiError } from '../contract/errors.ts';
import { isRetryableStage, transition } from '../contract/machine.ts';
import {
  LIMITS,
  type CreateJobResponse,
  type Cut,
  type JobStatus,
  type JobStatusResponse,
  type ListJobsResponse,
  type MultipartUpload,
  type OkResponse,
  type RecutResponse,
  type RequestUploadPartUrlsResponse,
  type StartProcessingResponse,
  type SubmitSpeakerMappingResponse,
  type TimeRange,
  type Track,
  type UploadInfo,
} from '../contract/types.ts';
import {
  isValidIdempotencyKey,
  parseCreateJob,
  parseCuts,
  parsePartNumbers,
  parsePresetId,
  parseRanges,
  parseSilence,
  parseSourceIds,
  parseTracks,
  requireObject,
} from '../contract/validate.ts';
import { sha256Hex } from '../auth/crypto.ts';
import type { ServiceContext } from '../jobs/context.ts';
import { apiBaseOf, eventOutputUrl, partUploadUrl, putUploadUrl, reviewUrl } from '../jobs/links.ts';
import { createJobRecord } from '../jobs/record.ts';
import { applyTrigger, enqueueOrFail, generateCutsInPlace, startRenderInPlace } from '../jobs/transitions.ts';
import { enforceMappingDeadline } from '../pipeline/reporter.ts';
import { getAccount } from '../store/accounts.ts';
import type { JobRecord } from '../store/db.ts';
import { deleteFile, deleteUpload, uploadsOfJob } from '../store/files.ts';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../store/idempotency.ts';
import { deleteJobRecord, getJobRecord, listJobsForAccount, updateJob } from '../store/jobs.ts';
import { canonicalJson, readJson } from './http.ts';
import { toGetJobResponse, toListItem, toSummary } from './views.ts';

/** A response body with optional extra headers. */
export interface OperationResult {
  body: unknown;
  headers?: Record<string, string>;
}

/** How many part URLs createJob hands out; the rest come from requestUploadPartUrls. */
export const FIRST_PART_URLS = 10;

/** A job of the caller, or 404. */
export async function ownedJob(ctx: ServiceContext, accountId: string, jobId: string): Promise<JobRecord> {
  const job = await getJobRecord(ctx.db, jobId);
  if (!job || job.accountId !== accountId) throw ApiError.notFound(`job ${jobId} not found`);
  return job;
}

async function uploadsOf(ctx: ServiceContext, apiBase: string, job: JobRecord): Promise<Record<string, UploadInfo>> {
  const uploads: Record<string, UploadInfo> = {};
  for (const source of job.sources) {
    if (source.upload.method === 'put') {
      uploads[source.id] = { method: 'put', url: await putUploadUrl(ctx, apiBase, job.id, source.id) };
    } else {
      const { uploadId, key, partSize, partCount } = source.upload;
      const urls: string[] = [];
      for (let n = 1; n <= Math.min(partCount, FIRST_PART_URLS); n++)
        urls.push(await partUploadUrl(ctx, apiBase, job.id, source.id, uploadId, n));
      const multipart: MultipartUpload = { method: 'multipart', uploadId, key, partSize, partCount, urls };
      uploads[source.id] = multipart;
    }
  }
  return uploads;
}

async function checkQuota(ctx: ServiceContext, accountId: string): Promise<void> {
  const account = await getAccount(ctx.db, accountId);
  if (account && account.quotaMinutes !== null && account.usedMinutes >= account.quotaMinutes) {
    throw ApiError.withCode('QUOTA_EXCEEDED', `the account's ${account.quotaMinutes} minutes are used up`);
  }
}

/** createJob: POST /jobs. */
export async function createJob(ctx: ServiceContext, accountId: string, request: Request): Promise<OperationResult> {
  const key = request.headers.get('idempotency-key');
  if (key !== null && !isValidIdempotencyKey(key)) {
    throw ApiError.withCode('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  const raw = await readJson(request);
  const parsed = parseCreateJob(raw);
  const apiBase = apiBaseOf(ctx, request);
  if (key === null) {
    await checkQuota(ctx, accountId);
    const job = await createJobRecord(ctx, accountId, apiBase, parsed);
    return {
      body: {
        jobId: job.id,
        uploads: await uploadsOf(ctx, apiBase, job),
        audioUploads: {},
      } satisfies CreateJobResponse,
    };
  }
  const claim = await claimIdempotencyKey(ctx.db, accountId, key, await sha256Hex(canonicalJson(raw)), ctx.now());
  switch (claim.kind) {
    case 'mismatch':
      throw ApiError.withCode(
        'IDEMPOTENCY_KEY_MISMATCH',
        'this Idempotency-Key was already used with a different body',
      );
    case 'in_progress':
      throw ApiError.withCode(
        'IDEMPOTENCY_IN_PROGRESS',
        'a request with this Idempotency-Key is still being processed',
        {},
        { 'Retry-After': String(claim.retryAfterSec) },
      );
    case 'done': {
      const job = await getJobRecord(ctx.db, claim.jobId);
      if (!job)
        throw ApiError.withCode(
          'IDEMPOTENCY_KEY_REUSED',
          'the job this Idempotency-Key created has been deleted; use a new key',
        );
      return {
        body: {
          jobId: job.id,
          uploads: await uploadsOf(ctx, apiBase, job),
          audioUploads: {},
        } satisfies CreateJobResponse,
        headers: { 'Idempotent-Replayed': 'true' },
      };
    }
    case 'claimed':
      break;
  }
  let job: JobRecord;
  try {
    await checkQuota(ctx, accountId);
    job = await createJobRecord(ctx, accountId, apiBase, parsed);
  } catch (error) {
    // Refused before a job existed: the key is not used up.
    await releaseIdempotencyKey(ctx.db, accountId, key);
    throw error;
  }
  await completeIdempotencyKey(ctx.db, accountId, key, job.id);
  return {
    body: { jobId: job.id, uploads: await uploadsOf(ctx, apiBase, job), audioUploads: {} } satisfies CreateJobResponse,
  };
}

/** listJobs: GET /jobs. */
export async function listJobs(ctx: ServiceContext, accountId: string): Promise<OperationResult> {
  const jobs = await listJobsForAccount(ctx.db, accountId, LIMITS.listSize);
  return { body: { jobs: jobs.map(toListItem) } satisfies ListJobsResponse };
}

/** getJob: GET /jobs/{id}[?view=summary]. */
export async function getJob(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
): Promise<OperationResult> {
  let job = await ownedJob(ctx, accountId, jobId);
  if (await enforceMappingDeadline(ctx, job)) job = await ownedJob(ctx, accountId, jobId);
  const apiBase = apiBaseOf(ctx, request);
  const view = new URL(request.url).searchParams.get('view');
  return { body: view === 'summary' ? await toSummary(ctx, job, apiBase) : await toGetJobResponse(ctx, job, apiBase) };
}

/** deleteJob: DELETE /jobs/{id}; any status; every stored byte of the job goes. */
export async function deleteJob(ctx: ServiceContext, accountId: string, jobId: string): Promise<OperationResult> {
  const job = await ownedJob(ctx, accountId, jobId);
  // The record goes first: a stage finishing later finds no job and deletes its own output.
  await deleteJobRecord(ctx.db, jobId);
  await ctx.engine.cancel(jobId).catch(() => undefined);
  const failures: string[] = [];
  const fileIds = [...job.sources.map((s) => s.fileId), job.audioFileId, job.outputFileId].filter(
    (id): id is string => id !== null,
  );
  for (const fileId of fileIds) await deleteFile(ctx.db, fileId).catch(() => failures.push(fileId));
  for (const upload of await uploadsOfJob(ctx.db, jobId))
    await deleteUpload(ctx.db, upload.uploadId).catch(() => failures.push(upload.uploadId));
  if (failures.length > 0)
    throw new ApiError(502, `some files could not be deleted (${failures.join(', ')}); try again`);
  return { body: { ok: true } satisfies OkResponse };
}

/** requestUploadPartUrls: POST /jobs/{id}/sources/{sourceId}/parts. */
export async function requestUploadPartUrls(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  sourceId: string,
  request: Request,
): Promise<OperationResult> {
  const job = await ownedJob(ctx, accountId, jobId);
  const source = job.sources.find((s) => s.id === sourceId);
  if (!source) throw ApiError.notFound(`source ${sourceId} not found in job ${jobId}`);
  const body = requireObject(await readJson(request));
  const uploadId = body['uploadId'];
  if (typeof uploadId !== 'string' || uploadId === '') throw ApiError.badRequest('uploadId is required');
  if (source.upload.method !== 'multipart')
    throw ApiError.badRequest(`source ${sourceId} has a single PUT upload, not a multipart one`);
  if (source.upload.uploadId !== uploadId)
    throw ApiError.notFound(`upload ${uploadId} not found for source ${sourceId}`);
  const partNumbers = parsePartNumbers(body['partNumbers'], source.upload.partCount);
  const apiBase = apiBaseOf(ctx, request);
  const urls: Record<string, string> = {};
  for (const n of partNumbers) urls[String(n)] = await partUploadUrl(ctx, apiBase, jobId, sourceId, uploadId, n);
  return { body: { urls } satisfies RequestUploadPartUrlsResponse };
}

function videoIds(job: JobRecord): string[] {
  return job.sources.filter((s) => s.kind === 'video').map((s) => s.id);
}

/** startProcessing: POST /jobs/{id}/process. */
export async function startProcessing(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
): Promise<OperationResult> {
  const job = await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request), true);
  const already = (status: JobStatus): OperationResult => ({
    body: { jobId, status, alreadyProcessed: true } satisfies StartProcessingResponse,
  });
  if (job.status !== 'created' && job.status !== 'uploading') {
    if (job.processingStarted && (job.status === 'syncing' || job.status === 'diarizing')) return already(job.status);
    throw ApiError.invalidStatus(job.status, 'startProcessing (the job must be created or uploading)');
  }
  const diarizeSourceIds =
    body['diarizeSourceIds'] === undefined
      ? null
      : parseSourceIds(
          body['diarizeSourceIds'],
          'diarizeSourceIds',
          job.sources.map((s) => s.id),
          false,
        );
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
}

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

function checkCuts(job: JobRecord, cuts: readonly Cut[], removedRanges: readonly TimeRange[]): void {
  const bad = checkCutList(cuts, { sources: job.sources, removedRanges });
  if (bad) throw ApiError.badRequest(bad.message);
}

/** submitSpeakerMapping: POST /jobs/{id}/tracks. */
export async function submitSpeakerMapping(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
): Promise<OperationResult> {
  const before = await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request));
  const tracks = parseTracks(body['tracks']);
  const cuts = body['cuts'] === undefined ? null : parseCuts(body['cuts']);
  const removedRanges = body['removedRanges'] === undefined ? null : parseRanges(body['removedRanges']);
  const link = await reviewUrl(ctx, before.apiBase, jobId);
  const outcome = await updateJob(ctx.db, jobId, (job) => {
    const now = ctx.now();
    if (job.status === 'mapping' && job.mappedBy === null) {
      checkTracks(job, tracks);
      generateCutsInPlace(job, tracks);
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
}

function requireEditable(job: JobRecord, operation: string): void {
  if (job.status !== 'ready' && job.status !== 'complete')
    throw ApiError.invalidStatus(job.status, `${operation} (the job must be ready or complete)`);
}

/** recutJob: POST /jobs/{id}/recut. */
export async function recutJob(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
): Promise<OperationResult> {
  await ownedJob(ctx, accountId, jobId);
  const body = requireObject(await readJson(request));
  const presetId = parsePresetId(body['presetId']);
  const silence = body['silence'] === undefined ? null : parseSilence(body['silence']);
  const result = await updateJob(ctx.db, jobId, (job) => {
    requireEditable(job, 'recutJob');
    const resolved = silence ?? job.silence;
    const plan = planEdit({
      turns: job.turns,
      tracks: job.tracks,
      sources: job.sources,
      cameraMap: job.cameraMap,
      presetId,
      silence: resolved,
      ...(job.quietRanges ? { quietRanges: job.quietRanges } : {}),
    });
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
}

/** updateCuts: PATCH /jobs/{id}/cuts. */
export async function updateCuts(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
): Promise<OperationResult> {
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
}

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

/** retryJob: POST /jobs/{id}/retry. */
export async function retryJob(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
): Promise<OperationResult> {
  const before = await ownedJob(ctx, accountId, jobId);
  if (before.status !== 'failed')
    throw new ApiError(409, `retryJob needs a failed job; the job is ${before.status}`, { status: before.status });
  const body = requireObject(await readJson(request), true);
  const diarizeSourceIds =
    body['diarizeSourceIds'] === undefined
      ? null
      : parseSourceIds(
          body['diarizeSourceIds'],
          'diarizeSourceIds',
          before.sources.map((s) => s.id),
          false,
        );
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
}
