/**
 * The job collection: createJob (POST /jobs, with Idempotency-Key and quota) and listJobs
 * (GET /jobs).
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import {
  LIMITS,
  type CreateJobResponse,
  type ListJobsResponse,
  type MultipartUpload,
  type UploadInfo,
} from '../../contract/types.ts';
import { isValidIdempotencyKey, parseCreateJob, type ParsedSource } from '../../contract/validate.ts';
import { sha256Hex } from '../../auth/crypto.ts';
import type { ServiceContext } from '../../jobs/context.ts';
import { apiBaseOf, partUploadUrl, putUploadUrl } from '../../jobs/links.ts';
import { createJobRecord } from '../../jobs/record.ts';
import type { NewWarning } from '../../contract/warnings.ts';
import { addJobWarnings } from '../../jobs/warnings.ts';
import { getAccount } from '../../store/accounts.ts';
import type { JobRecord } from '../../store/db.ts';
import { claimIdempotencyKey, releaseIdempotencyKey } from '../../store/idempotency.ts';
import { getJobRecord, listJobsForAccount } from '../../store/jobs.ts';
import { canonicalJson, readJson } from '../http.ts';
import { toListItem } from '../views.ts';
import type { OperationResult } from './owned.ts';

/** How many part URLs createJob hands out; the rest come from requestUploadPartUrls. */
export const FIRST_PART_URLS = 10;

/** The upload URLs createJob hands out per source: the PUT URL, or the first part URLs. */
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

/** The body of createJob's answer for `job`. */
async function createdBody(ctx: ServiceContext, apiBase: string, job: JobRecord): Promise<CreateJobResponse> {
  return { jobId: job.id, uploads: await uploadsOf(ctx, apiBase, job), audioUploads: {} };
}

/** 403 QUOTA_EXCEEDED when the account's minutes are used up. */
async function checkQuota(ctx: ServiceContext, accountId: string): Promise<void> {
  const account = await getAccount(ctx.db, accountId);
  if (account && account.quotaMinutes !== null && account.usedMinutes >= account.quotaMinutes) {
    throw ApiError.withCode('QUOTA_EXCEEDED', `the account's ${account.quotaMinutes} minutes are used up`);
  }
}

/**
 * Room for a job besides its uploads: the render (an edit at the cameras' bitrate is about one
 * camera's size; a fifth of four cameras plus mics) and the speaker-detection audio.
 */
export const RENDER_HEADROOM = 0.25;

/**
 * Room for the cameras' proxies (docs/proxies.md): about 0.8 Mb/s each, a tenth of a camera at
 * 8 Mb/s and less of a larger one. Counted for cameras used in place too: their proxies are stored.
 */
export const PROXY_HEADROOM = 0.1;

/**
 * 507 INSUFFICIENT_STORAGE when the declared files (and room for the render and proxies) do not fit in
 * what the origin may still store: said before any byte is uploaded, and nothing is created.
 * Sources without a declared `fileSize` are not counted (they may fail later, at upload);
 * sources used in place (`local`) count only towards the render's room.
 */
async function checkStorage(ctx: ServiceContext, sources: readonly ParsedSource[]): Promise<NewWarning[]> {
  const all = sources.reduce<number>((a, s) => a + (s.fileSize ?? 0), 0);
  const declared = sources.reduce<number>((a, s) => a + (s.local ? 0 : (s.fileSize ?? 0)), 0);
  const cameras = sources.reduce<number>((a, s) => a + (s.kind === 'video' ? (s.fileSize ?? 0) : 0), 0);
  if (all === 0 || !ctx.storageEstimate) return [];
  let reason = '';
  const { quota, usage } = await ctx.storageEstimate().catch((error: unknown) => {
    reason = ` (${error instanceof Error ? error.message : String(error)})`;
    return { quota: undefined, usage: undefined };
  });
  // Not a reason to refuse the job, but the person must know the check did not happen.
  if (quota === undefined || usage === undefined)
    return [
      {
        code: 'storage_estimate_unavailable',
        message:
          `this browser did not say how much it may still store${reason}, so it was not checked that the files ` +
          'fit: an upload or the render may fail later for lack of space',
      },
    ];
  const availableBytes = Math.max(0, quota - usage);
  const neededBytes = declared + Math.ceil(all * RENDER_HEADROOM) + Math.ceil(cameras * PROXY_HEADROOM);
  if (neededBytes <= availableBytes) return [];
  const gb = (n: number): string => `${(n / 1e9).toFixed(1)} GB`;
  throw ApiError.withCode(
    'INSUFFICIENT_STORAGE',
    `this browser can store ${gb(availableBytes)} more for this site, and the job needs about ${gb(neededBytes)} ` +
      `(${gb(declared)} of files and room for the render and the proxies): delete finished jobs, free disk space, ` +
      (declared > 0 ? 'use the files in place (sources[].local, then attachLocalFile), ' : '') +
      'or split the recording',
    { neededBytes, availableBytes },
  );
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
    const warnings = await checkStorage(ctx, parsed.sources);
    const job = await createJobRecord(ctx, accountId, apiBase, parsed);
    await addJobWarnings(ctx, job.id, warnings);
    return { body: await createdBody(ctx, apiBase, job) };
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
      return { body: await createdBody(ctx, apiBase, job), headers: { 'Idempotent-Replayed': 'true' } };
    }
    case 'claimed':
      break;
  }
  let job: JobRecord;
  try {
    await checkQuota(ctx, accountId);
    const warnings = await checkStorage(ctx, parsed.sources);
    // The job and the key's record are written in one transaction: a crash leaves both or neither.
    job = await createJobRecord(ctx, accountId, apiBase, parsed, key);
    await addJobWarnings(ctx, job.id, warnings);
  } catch (error) {
    // Refused before a job existed: the key is not used up.
    await releaseIdempotencyKey(ctx.db, accountId, key);
    throw error;
  }
  return { body: await createdBody(ctx, apiBase, job) };
}

/** listJobs: GET /jobs. */
export async function listJobs(ctx: ServiceContext, accountId: string): Promise<OperationResult> {
  const jobs = await listJobsForAccount(ctx.db, accountId, LIMITS.listSize);
  return { body: { jobs: jobs.map(toListItem) } satisfies ListJobsResponse };
}
