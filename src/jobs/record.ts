/**
 * The job-record factory: a new {@link JobRecord} in `created` from a parsed createJob body,
 * with its sources' upload plans (one PUT, or S3-style multipart above the threshold) and the
 * multipart uploads stored beside it.
 *
 * @module
 */
import { LIMITS } from '../contract/types.ts';
import type { ParsedCreateJob } from '../contract/validate.ts';
import type { JobRecord, SourceRecord, UploadPlan, UploadRecord } from '../store/db.ts';
import { insertJob } from '../store/jobs.ts';
import type { ServiceContext } from './context.ts';

const MIB = 1024 * 1024;

/** Parts are at least 8 MiB and at most 10 000 per file (as S3 allows). */
export function partSizeFor(fileSize: number): number {
  return Math.max(8 * MIB, Math.ceil(fileSize / 10_000 / MIB) * MIB);
}

function defaultTitle(parsed: ParsedCreateJob, now: number): string | null {
  if (parsed.sources.length === 0) return null;
  const title = `${parsed.sources.map((s) => s.label).join(', ')} (${new Date(now).toISOString().slice(0, 10)})`;
  return title.length > LIMITS.titleMaxLength ? `${title.slice(0, LIMITS.titleMaxLength - 1)}…` : title;
}

/** A new source of job `jobId`: its upload plan (one PUT, or multipart above the threshold), no file yet. */
function newSourceRecord(s: ParsedCreateJob['sources'][number], jobId: string): SourceRecord {
  const id = crypto.randomUUID();
  let upload: UploadPlan = { method: 'put' };
  if (s.fileSize !== undefined && s.fileSize > LIMITS.multipartThreshold) {
    const uploadId = crypto.randomUUID();
    const partSize = partSizeFor(s.fileSize);
    upload = {
      method: 'multipart',
      uploadId,
      key: `jobs/${jobId}/sources/${id}/${uploadId}`,
      partSize,
      partCount: Math.ceil(s.fileSize / partSize),
    };
  }
  const source: SourceRecord = {
    id,
    label: s.label,
    kind: s.kind,
    ext: s.ext,
    fileId: null,
    upload,
    sizeError: null,
  };
  if (s.fileSize !== undefined) source.fileSize = s.fileSize;
  if (s.local === true) source.local = true;
  return source;
}

/**
 * Stores a new job of `accountId` created under `apiBase`, its multipart uploads and (given
 * `idempotencyKey`, claimed before) the key's record, in one transaction; returns the stored record.
 */
export async function createJobRecord(
  ctx: ServiceContext,
  accountId: string,
  apiBase: string,
  parsed: ParsedCreateJob,
  idempotencyKey?: string,
): Promise<JobRecord> {
  const now = ctx.now();
  const jobId = crypto.randomUUID();
  const sources = parsed.sources.map((s) => newSourceRecord(s, jobId));
  const uploads: UploadRecord[] = [];
  for (const source of sources) {
    if (source.upload.method !== 'multipart' || source.fileSize === undefined) continue;
    const { uploadId, key, partSize, partCount } = source.upload;
    uploads.push({
      uploadId,
      key,
      accountId,
      jobId,
      sourceId: source.id,
      partSize,
      partCount,
      fileSize: source.fileSize,
      createdAt: now,
    });
  }
  return insertJob(
    ctx.db,
    {
      id: jobId,
      accountId,
      apiBase,
      title: parsed.title ?? defaultTitle(parsed, now),
      status: 'created',
      sources,
      tracks: [],
      turns: [],
      speakers: [],
      cuts: [],
      removedRanges: null,
      cameraMap: null,
      presetId: 'balanced',
      silence: parsed.silence,
      audio: parsed.audio,
      review: parsed.review,
      autoMap: parsed.autoMap,
      callbackUrl: parsed.callbackUrl,
      diarizeSourceIds: null,
      errorMessage: null,
      failedAtStatus: null,
      failurePermanent: false,
      stageAttempts: {},
      progress: null,
      outputFileId: null,
      renderedAt: null,
      audioFileId: null,
      mappedBy: null,
      mappingSince: null,
      mappingAsked: false,
      processingStarted: false,
      billedMinutes: 0,
      eventCount: 0,
      createdAt: now,
      updatedAt: now,
    },
    { uploads, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) },
  );
}
