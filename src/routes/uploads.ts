/**
 * Uploads and downloads: the signed PUT URLs (whole files and multipart parts),
 * completeMultipartUpload / abortMultipartUpload, and signed downloads with HTTP Range.
 *
 * @module
 */
import { ApiError } from '../contract/errors.ts';
import { LIMITS, type OkResponse } from '../contract/types.ts';
import { requireObject } from '../contract/validate.ts';
import type { SignatureProblem } from '../auth/signer.ts';
import type { JobRecord, UploadRecord } from '../store/db.ts';
import {
  StreamTooLargeError,
  deleteFile,
  deleteRun,
  dropParts,
  getFile,
  getUpload,
  partsOf,
  putFile,
  putLocalFile,
  putPart,
  readRange,
  writeRun,
} from '../store/files.ts';
import { getJobRecord, updateJob } from '../store/jobs.ts';
import { LocalFileUnavailableError, localFileRegistry } from '../store/local-files.ts';
import type { ServiceContext } from '../jobs/context.ts';
import { contentDisposition, json, readJson } from './http.ts';

const CONTENT_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
};

/** 403 for a bad signed URL. */
export async function requireSignature(ctx: ServiceContext, request: Request, url: URL): Promise<void> {
  const problem: SignatureProblem | null = await ctx.signer.verifyUrl(request.method, url, ctx.now());
  if (problem === 'expired') throw new ApiError(403, 'the signed URL has expired; fetch the job again for a fresh one');
  if (problem !== null)
    throw new ApiError(
      403,
      `the signed URL is ${problem === 'missing' ? 'missing exp or sig' : 'not valid (sig does not match)'}`,
    );
}

function requireUploadable(job: JobRecord): void {
  if (job.status !== 'created' && job.status !== 'uploading')
    throw ApiError.invalidStatus(job.status, 'uploading a file (the job must be created or uploading)');
}

/** Links a stored file to its source; deletes the file when the job or source went away. */
async function attachFile(ctx: ServiceContext, jobId: string, sourceId: string, fileId: string): Promise<void> {
  let previous: string | null = null;
  const attached = await updateJob(ctx.db, jobId, (job) => {
    const source = job.sources.find((s) => s.id === sourceId);
    if (!source) return { job: null, result: false };
    requireUploadable(job);
    previous = source.fileId;
    source.fileId = fileId;
    source.sizeError = null;
    job.updatedAt = ctx.now();
    return { job, result: true };
  }).catch(async (error: unknown) => {
    await deleteFile(ctx.db, fileId);
    throw error;
  });
  if (!attached) {
    await deleteFile(ctx.db, fileId);
    throw ApiError.notFound(`source ${sourceId} of job ${jobId} not found`);
  }
  if (previous !== null) await deleteFile(ctx.db, previous);
}

/** Records a failed size check on a source (reported again by startProcessing) and drops its file. */
async function recordSizeError(ctx: ServiceContext, jobId: string, sourceId: string, error: ApiError): Promise<void> {
  let previous: string | null = null;
  await updateJob(ctx.db, jobId, (job) => {
    const source = job.sources.find((s) => s.id === sourceId);
    if (!source) return { job: null, result: undefined };
    previous = source.fileId;
    source.fileId = null;
    source.sizeError = {
      code: error.body.code === 'FILE_TOO_LARGE' ? 'FILE_TOO_LARGE' : 'FILE_SIZE_MISMATCH',
      message: error.message,
    };
    job.updatedAt = ctx.now();
    return { job, result: undefined };
  });
  if (previous !== null) await deleteFile(ctx.db, previous);
}

/** A file used in place that no context holds: 409 LOCAL_FILE_UNAVAILABLE, saying what to do. */
function localFileError(error: unknown): never {
  if (error instanceof LocalFileUnavailableError) throw ApiError.withCode('LOCAL_FILE_UNAVAILABLE', error.message);
  throw error;
}

/** PUT {base}/signed/upload/{jobId}/{sourceId}: a whole file in one request (≤ 5 GB). */
export async function putSourceFile(
  ctx: ServiceContext,
  request: Request,
  url: URL,
  jobId: string,
  sourceId: string,
): Promise<Response> {
  await requireSignature(ctx, request, url);
  const job = await getJobRecord(ctx.db, jobId);
  const source = job?.sources.find((s) => s.id === sourceId);
  if (!job || !source) throw ApiError.notFound(`source ${sourceId} of job ${jobId} not found`);
  requireUploadable(job);
  const declared = source.fileSize;
  const sizeMismatch = (actual: string): ApiError =>
    ApiError.withCode(
      'FILE_SIZE_MISMATCH',
      `the uploaded file of source ${sourceId} (${source.label}) is ${actual} bytes but its declared fileSize is ${declared}; upload it again`,
      { sourceId },
    );
  const tooLarge = (): ApiError =>
    ApiError.withCode(
      'FILE_TOO_LARGE',
      `the file of source ${sourceId} (${source.label}) is over the single-PUT limit of ${LIMITS.maxPutSize} bytes`,
      { sourceId, maxBytes: LIMITS.maxPutSize },
    );
  const length = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(length) && length > LIMITS.maxPutSize) {
    const error = tooLarge();
    await recordSizeError(ctx, jobId, sourceId, error);
    throw error;
  }
  const maxBytes = Math.min(LIMITS.maxPutSize, declared ?? LIMITS.maxPutSize);
  let run;
  try {
    run = await writeRun(ctx.db, request.body, maxBytes);
  } catch (error) {
    if (!(error instanceof StreamTooLargeError)) throw error;
    const refused =
      declared !== undefined && declared < LIMITS.maxPutSize ? sizeMismatch(`more than ${declared}`) : tooLarge();
    await recordSizeError(ctx, jobId, sourceId, refused);
    throw refused;
  }
  if (declared !== undefined && run.size !== declared) {
    await deleteRun(ctx.db, run.chunkFileId, run.chunkSizes.length);
    const error = sizeMismatch(String(run.size));
    await recordSizeError(ctx, jobId, sourceId, error);
    throw error;
  }
  const fileId = crypto.randomUUID();
  await putFile(ctx.db, {
    id: fileId,
    size: run.size,
    type: CONTENT_TYPES[source.ext] ?? 'application/octet-stream',
    segments: [{ chunkFileId: run.chunkFileId, chunkSizes: run.chunkSizes }],
    createdAt: ctx.now(),
  });
  await attachFile(ctx, jobId, sourceId, fileId);
  return new Response(null, { status: 200, headers: { etag: `"${run.chunkFileId}"` } });
}

/** What {@link attachLocalSource} did. */
export interface LocalAttachResult {
  jobId: string;
  sourceId: string;
  /** The file record of the source (no bytes stored). */
  fileId: string;
  /** True when the source already used this very file (picked again after a reload): nothing changed. */
  reattached: boolean;
}

/**
 * The library API behind `attachLocalFile`: `picked` (a File, or a File System Access handle)
 * becomes the source's file in place: no byte is copied into storage (see
 * store/local-files.ts). Checked like an upload: the job must be created or uploading, and the
 * size must equal the declared `fileSize` (400 FILE_SIZE_MISMATCH, recorded on the source like
 * a failed upload). Picking the same file again (same name, size and modification time) in any
 * status only lets this page hold it again: the way back after a reload.
 */
export async function attachLocalSource(
  ctx: ServiceContext,
  jobId: string,
  sourceId: string,
  picked: File | FileSystemFileHandle,
): Promise<LocalAttachResult> {
  const handle = picked instanceof File ? undefined : picked;
  const file = picked instanceof File ? picked : await picked.getFile();
  const job = await getJobRecord(ctx.db, jobId);
  const source = job?.sources.find((s) => s.id === sourceId);
  if (!job || !source) throw ApiError.notFound(`source ${sourceId} of job ${jobId} not found`);
  const current = source.fileId === null ? undefined : await getFile(ctx.db, source.fileId);
  if (current?.local) {
    const same =
      current.local.name === file.name &&
      current.size === file.size &&
      current.local.lastModified === file.lastModified;
    if (same) {
      localFileRegistry(ctx.db.name).hold(current.id, file);
      return { jobId, sourceId, fileId: current.id, reattached: true };
    }
    if (job.status !== 'created' && job.status !== 'uploading')
      throw ApiError.withCode(
        'INVALID_STATUS',
        `source ${sourceId} (${source.label}) uses "${current.local.name}" (${current.size} bytes) and the job is ${job.status}: ` +
          `pick that file again ("${file.name}", ${file.size} bytes, is another or changed since)`,
        { status: job.status, sourceId },
      );
  }
  requireUploadable(job);
  if (source.fileSize !== undefined && file.size !== source.fileSize) {
    const error = ApiError.withCode(
      'FILE_SIZE_MISMATCH',
      `the file picked for source ${sourceId} (${source.label}), "${file.name}", is ${file.size} bytes but its declared fileSize is ${source.fileSize}; pick the right file`,
      { sourceId },
    );
    await recordSizeError(ctx, jobId, sourceId, error);
    throw error;
  }
  const type = file.type !== '' ? file.type : (CONTENT_TYPES[source.ext] ?? 'application/octet-stream');
  const fileId = await putLocalFile(ctx.db, file, { type, now: ctx.now(), ...(handle ? { handle } : {}) });
  await attachFile(ctx, jobId, sourceId, fileId);
  return { jobId, sourceId, fileId, reattached: false };
}

/** PUT {base}/signed/upload/{jobId}/{sourceId}/parts/{uploadId}/{partNumber}: one part (≤ partSize). */
export async function putPartFile(
  ctx: ServiceContext,
  request: Request,
  url: URL,
  jobId: string,
  sourceId: string,
  uploadId: string,
  partNumber: number,
): Promise<Response> {
  await requireSignature(ctx, request, url);
  const upload = await getUpload(ctx.db, uploadId);
  const job = await getJobRecord(ctx.db, jobId);
  if (!upload || !job || upload.jobId !== jobId || upload.sourceId !== sourceId)
    throw ApiError.notFound(`upload ${uploadId} not found`);
  requireUploadable(job);
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > upload.partCount) {
    throw ApiError.badRequest(`part number ${partNumber} must be from 1 to ${upload.partCount} (partCount)`);
  }
  let run;
  try {
    run = await writeRun(ctx.db, request.body, upload.partSize);
  } catch (error) {
    if (error instanceof StreamTooLargeError)
      throw ApiError.badRequest(`part ${partNumber} is larger than partSize (${upload.partSize} bytes)`);
    throw error;
  }
  await putPart(ctx.db, {
    uploadId,
    partNumber,
    chunkFileId: run.chunkFileId,
    chunkSizes: run.chunkSizes,
    size: run.size,
  });
  return new Response(null, { status: 200, headers: { etag: `"${run.chunkFileId}"` } });
}

async function multipartTarget(ctx: ServiceContext, accountId: string, request: Request): Promise<UploadRecord> {
  const body = requireObject(await readJson(request));
  const key = body['key'];
  const uploadId = body['uploadId'];
  if (typeof key !== 'string' || key === '') throw ApiError.badRequest('key is required');
  if (typeof uploadId !== 'string' || uploadId === '') throw ApiError.badRequest('uploadId is required');
  const upload = await getUpload(ctx.db, uploadId);
  if (!upload || upload.key !== key) throw ApiError.notFound(`upload ${uploadId} with key ${key} not found`);
  if (upload.accountId !== accountId) throw new ApiError(403, `key ${key} belongs to a job of another account`);
  return upload;
}

/** completeMultipartUpload: POST {base}/uploads/complete. Links the parts (no copy) and checks the size. */
export async function completeMultipartUpload(
  ctx: ServiceContext,
  accountId: string,
  request: Request,
): Promise<Response> {
  const upload = await multipartTarget(ctx, accountId, request);
  const job = await getJobRecord(ctx.db, upload.jobId);
  const source = job?.sources.find((s) => s.id === upload.sourceId);
  if (!job || !source) throw ApiError.notFound(`job ${upload.jobId} not found`);
  const parts = (await partsOf(ctx.db, upload.uploadId)).sort((a, b) => a.partNumber - b.partNumber);
  if (parts.length === 0 && source.fileId !== null) return json(200, { ok: true } satisfies OkResponse);
  requireUploadable(job);
  const size = parts.reduce((sum, p) => sum + p.size, 0);
  let refused: ApiError | null = null;
  if (size > LIMITS.maxFileSize) {
    refused = ApiError.withCode(
      'FILE_TOO_LARGE',
      `the assembled file of source ${source.id} (${source.label}) is over the limit of ${LIMITS.maxFileSize} bytes; upload it again`,
      {
        sourceId: source.id,
        maxBytes: LIMITS.maxFileSize,
      },
    );
  } else if (size !== upload.fileSize) {
    const missing = [];
    for (let n = 1; n <= upload.partCount; n++) if (!parts.some((p) => p.partNumber === n)) missing.push(n);
    refused = ApiError.withCode(
      'FILE_SIZE_MISMATCH',
      `the assembled file of source ${source.id} (${source.label}) is ${size} bytes but its declared fileSize is ${upload.fileSize}` +
        (missing.length
          ? ` (missing parts: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''})`
          : '') +
        '; the parts were deleted, upload it again',
      { sourceId: source.id },
    );
  }
  if (refused) {
    await dropParts(ctx.db, upload.uploadId, true);
    await recordSizeError(ctx, job.id, source.id, refused);
    throw refused;
  }
  const fileId = crypto.randomUUID();
  await putFile(ctx.db, {
    id: fileId,
    size,
    type: CONTENT_TYPES[source.ext] ?? 'application/octet-stream',
    segments: parts.map((p) => ({ chunkFileId: p.chunkFileId, chunkSizes: p.chunkSizes })),
    createdAt: ctx.now(),
  });
  // The parts' chunks now belong to the file: forget the part records, keep the bytes.
  await dropParts(ctx.db, upload.uploadId, false);
  await attachFile(ctx, job.id, source.id, fileId);
  return json(200, { ok: true } satisfies OkResponse);
}

/** abortMultipartUpload: POST {base}/uploads/abort. Discards the uploaded parts. */
export async function abortMultipartUpload(
  ctx: ServiceContext,
  accountId: string,
  request: Request,
): Promise<Response> {
  const upload = await multipartTarget(ctx, accountId, request);
  await dropParts(ctx.db, upload.uploadId, true);
  return json(200, { ok: true } satisfies OkResponse);
}

/** A parsed single `Range: bytes=…` header: `[start, end)`, 'unsatisfiable', or null (serve everything). */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  if (header === null) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null; // multiple or malformed ranges: the whole file, as RFC 9110 allows
  const [, a = '', b = ''] = match;
  if (a === '' && b === '') return null;
  if (a === '') {
    const suffix = Number(b);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size };
  }
  const start = Number(a);
  // last < first makes the range invalid, and an invalid Range header is ignored (RFC 9110 §14.2).
  if (b !== '' && Number(b) < start) return null;
  const last = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size) return 'unsatisfiable';
  return { start, end: last + 1 };
}

/**
 * GET/HEAD {base}/signed/files/{fileId}: a stored file, with HTTP Range. `&download=<name>`
 * (outside the signature) adds `Content-Disposition: attachment`, so a link the person clicks
 * saves the file under that name: the service worker answers the navigation. (A link with the
 * `download` attribute is not routed through a service worker in Chromium.)
 */
export async function downloadFile(ctx: ServiceContext, request: Request, url: URL, fileId: string): Promise<Response> {
  await requireSignature(ctx, request, url);
  const file = await getFile(ctx.db, fileId);
  if (!file) throw ApiError.notFound(`file ${fileId} not found`);
  const range = parseRange(request.headers.get('range'), file.size);
  const head = request.method === 'HEAD';
  const name = url.searchParams.get('download');
  const common: Record<string, string> = {
    'content-type': file.type,
    'accept-ranges': 'bytes',
    ...(name === null ? {} : { 'content-disposition': contentDisposition(name.trim() || `${fileId}.mp4`) }),
  };
  if (range === 'unsatisfiable') {
    return json(
      416,
      { error: `the range ${request.headers.get('range')} is outside the file (${file.size} bytes)` },
      { 'content-range': `bytes */${file.size}` },
    );
  }
  const body = async (start: number, end: number): Promise<BodyInit | null> =>
    head ? null : readRange(ctx.db, file, start, end).catch(localFileError);
  if (range === null) {
    return new Response(await body(0, file.size), {
      status: 200,
      headers: { ...common, 'content-length': String(file.size) },
    });
  }
  return new Response(await body(range.start, range.end), {
    status: 206,
    headers: {
      ...common,
      'content-length': String(range.end - range.start),
      'content-range': `bytes ${range.start}-${range.end - 1}/${file.size}`,
    },
  });
}
