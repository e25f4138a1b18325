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
import { sniffMedia } from '../contract/media-sniff.ts';
import type { FileRecord, JobRecord, PartRecord, SourceMediaProblem, SourceRecord, UploadRecord } from '../store/db.ts';
import { addWarning } from '../contract/warnings.ts';
import {
  RunCollectedError,
  StreamTooLargeError,
  deleteFile,
  deleteRun,
  dropParts,
  getFile,
  getUpload,
  partsOf,
  putLocalFile,
  putPart,
  readRange,
  readRunHead,
  writeRun,
} from '../store/files.ts';
import { getJobRecord } from '../store/jobs.ts';
import { changeSourceFile } from '../store/source-files.ts';
import { LocalFileUnavailableError, localFileRegistry } from '../store/local-files.ts';
import type { ServiceContext } from '../jobs/context.ts';
import { contentDisposition, json, readJson, requestBody } from './http.ts';

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

/** The types a download may be served as: the sources' and the renders' media types. */
const MEDIA_TYPES = new Set([...Object.values(CONTENT_TYPES), 'audio/webm', 'audio/ogg', 'video/ogg', 'audio/x-wav']);

/** The Content-Type of a source declared with extension `ext`. */
function contentTypeOf(ext: string): string {
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/**
 * What a stored file is served as: its media type when it is one of {@link MEDIA_TYPES}, else
 * `application/octet-stream` (never text/html or anything a browser would run).
 */
function servedType(type: string): string {
  const base = type.split(';')[0]!.trim().toLowerCase();
  return MEDIA_TYPES.has(base) ? base : 'application/octet-stream';
}

/**
 * Headers of every signed download: the browser must not guess another type, and a file
 * opened as a page runs nothing and reaches nothing (a `<video>` still plays it: a media
 * response's CSP does not apply to the page that plays it).
 */
const DOWNLOAD_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'",
} as const;

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

/** A run collected while its writer stalled: the bytes are gone, the client sends them again. */
function collectedError(error: unknown): never {
  if (error instanceof RunCollectedError) throw new ApiError(409, error.message);
  throw error;
}

/**
 * Makes `file` (whose runs this request has just written) the source's file, deleting the file
 * it replaces, in one transaction, with what its first bytes say (`problem`: recorded on the
 * source and as a job warning). When the source or job went away, or the job no longer takes
 * uploads, the new runs are deleted instead.
 */
async function attachFile(
  ctx: ServiceContext,
  jobId: string,
  sourceId: string,
  file: FileRecord,
  problem: SourceMediaProblem | null = null,
): Promise<void> {
  const dropNew = async (): Promise<void> => {
    if (file.local) await deleteFile(ctx.db, file.id);
    for (const segment of file.segments) await deleteRun(ctx.db, segment.chunkFileId);
  };
  const outcome = await changeSourceFile(ctx.db, { jobId, sourceId }, (job, source) => {
    requireUploadable(job);
    job.updatedAt = ctx.now();
    noteMediaProblem(ctx, job, source, problem);
    return { file, sizeError: null, result: undefined };
  }).catch(async (error: unknown) => {
    await dropNew();
    collectedError(error);
  });
  if (!outcome.found) {
    await dropNew();
    throw ApiError.notFound(`source ${sourceId} of job ${jobId} not found`);
  }
}

/**
 * Records on `source` what its new file's first bytes say, and warns on the job when they are
 * not media: the upload is accepted (a presigned PUT does not judge content), and the syncing
 * stage fails at once with the same message.
 */
function noteMediaProblem(
  ctx: ServiceContext,
  job: JobRecord,
  source: SourceRecord,
  problem: SourceMediaProblem | null,
): void {
  source.mediaProblem = problem;
  if (problem === null) {
    job.warnings = (job.warnings ?? []).filter((w) => !(w.code === 'source_not_media' && w.sourceId === source.id));
    return;
  }
  job.warnings = addWarning(
    job.warnings ?? [],
    { code: 'source_not_media', sourceId: source.id, message: `${problem.message}: upload the right file` },
    ctx.now(),
  );
}

/** The `sizeError` recorded on a source for a refused upload. */
function sourceError(error: ApiError): NonNullable<SourceRecord['sizeError']> {
  return {
    code: error.body.code === 'FILE_TOO_LARGE' ? 'FILE_TOO_LARGE' : 'FILE_SIZE_MISMATCH',
    message: error.message,
  };
}

/** Records a refused upload on a source (reported again by startProcessing) and drops its file, in one transaction. */
async function recordSizeError(ctx: ServiceContext, jobId: string, sourceId: string, error: ApiError): Promise<void> {
  await changeSourceFile(ctx.db, { jobId, sourceId }, (job, source) => {
    job.updatedAt = ctx.now();
    noteMediaProblem(ctx, job, source, null);
    return { file: null, sizeError: sourceError(error), result: undefined };
  });
}

/** What is wrong with the bytes starting with `head` (empty, or not a video or audio file); null when they are media. */
function mediaProblemOf(source: SourceRecord, head: Uint8Array): SourceMediaProblem | null {
  const sniff = sniffMedia(head);
  if (sniff.kind === 'media') return null;
  const what = `the file of source ${source.label} (${source.id})`;
  return sniff.kind === 'empty'
    ? { code: 'FILE_EMPTY', message: `${what} is empty` }
    : { code: 'FILE_NOT_MEDIA', message: `${what} is not a video or audio file (it starts with ${sniff.start})` };
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
    run = await writeRun(ctx.db, await requestBody(request), maxBytes);
  } catch (error) {
    if (!(error instanceof StreamTooLargeError)) collectedError(error);
    const refused =
      declared !== undefined && declared < LIMITS.maxPutSize ? sizeMismatch(`more than ${declared}`) : tooLarge();
    await recordSizeError(ctx, jobId, sourceId, refused);
    throw refused;
  }
  const refused = declared !== undefined && run.size !== declared ? sizeMismatch(String(run.size)) : null;
  if (refused) {
    await deleteRun(ctx.db, run.chunkFileId);
    await recordSizeError(ctx, jobId, sourceId, refused);
    throw refused;
  }
  const problem = mediaProblemOf(source, await readRunHead(ctx.db, run.chunkFileId));
  await attachFile(
    ctx,
    jobId,
    sourceId,
    {
      id: crypto.randomUUID(),
      size: run.size,
      type: contentTypeOf(source.ext),
      segments: [{ chunkFileId: run.chunkFileId, chunkSizes: run.chunkSizes }],
      createdAt: ctx.now(),
    },
    problem,
  );
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
  // The type comes from the declared extension, never from the picked File (a picked page would
  // otherwise be served as text/html).
  const type = contentTypeOf(source.ext);
  const fileId = await putLocalFile(ctx.db, file, { type, now: ctx.now(), ...(handle ? { handle } : {}) });
  const record = await getFile(ctx.db, fileId);
  if (!record) throw new Error(`file ${fileId} vanished while it was attached`);
  await attachFile(ctx, jobId, sourceId, record);
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
    run = await writeRun(ctx.db, await requestBody(request), upload.partSize);
  } catch (error) {
    if (error instanceof StreamTooLargeError)
      throw ApiError.badRequest(`part ${partNumber} is larger than partSize (${upload.partSize} bytes)`);
    collectedError(error);
  }
  const part = { uploadId, partNumber, chunkFileId: run.chunkFileId, chunkSizes: run.chunkSizes, size: run.size };
  await putPart(ctx.db, part).catch(async (error: unknown) => {
    await deleteRun(ctx.db, run.chunkFileId);
    collectedError(error);
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

/** The size check of an assembled upload: null when `parts` add up to the declared size. */
function assembledSizeError(upload: UploadRecord, source: SourceRecord, parts: readonly PartRecord[]): ApiError | null {
  const size = parts.reduce((sum, p) => sum + p.size, 0);
  if (size > LIMITS.maxFileSize) {
    return ApiError.withCode(
      'FILE_TOO_LARGE',
      `the assembled file of source ${source.id} (${source.label}) is over the limit of ${LIMITS.maxFileSize} bytes; upload it again`,
      { sourceId: source.id, maxBytes: LIMITS.maxFileSize },
    );
  }
  if (size === upload.fileSize) return null;
  const missing = [];
  for (let n = 1; n <= upload.partCount; n++) if (!parts.some((p) => p.partNumber === n)) missing.push(n);
  return ApiError.withCode(
    'FILE_SIZE_MISMATCH',
    `the assembled file of source ${source.id} (${source.label}) is ${size} bytes but its declared fileSize is ${upload.fileSize}` +
      (missing.length
        ? ` (missing parts: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''})`
        : '') +
      '; the parts were deleted, upload it again',
    { sourceId: source.id },
  );
}

/**
 * completeMultipartUpload: POST {base}/uploads/complete. Links the parts (no copy), checks the
 * size and the first bytes. The parts, the file record and the source's fileId change in one
 * transaction, so a complete retried while the first one runs waits for it and answers the
 * same: 200 when the upload already became the source's file.
 */
export async function completeMultipartUpload(
  ctx: ServiceContext,
  accountId: string,
  request: Request,
): Promise<Response> {
  const upload = await multipartTarget(ctx, accountId, request);
  // Reading bytes is no IndexedDB request, so the first part is sniffed before the transaction;
  // the transaction checks that part 1 is still the run sniffed (a part PUT in between retries).
  for (let attempt = 0; attempt < 3; attempt++) {
    const first = (await partsOf(ctx.db, upload.uploadId)).find((p) => p.partNumber === 1);
    const head = first ? await readRunHead(ctx.db, first.chunkFileId) : new Uint8Array(0);
    const fileId = crypto.randomUUID();
    type Outcome = { kind: 'done' } | { kind: 'refused'; error: ApiError } | { kind: 'changed' };
    const outcome = await changeSourceFile<Outcome>(
      ctx.db,
      { jobId: upload.jobId, sourceId: upload.sourceId, uploadId: upload.uploadId },
      (job, source, parts) => {
        // Already completed (by this request's twin, or before): the same answer, nothing changes.
        if (parts.length === 0 && source.fileId !== null) return { result: { kind: 'done' } };
        requireUploadable(job);
        if (parts.find((p) => p.partNumber === 1)?.chunkFileId !== first?.chunkFileId)
          return { result: { kind: 'changed' } };
        const refused = assembledSizeError(upload, source, parts);
        job.updatedAt = ctx.now();
        if (refused) {
          return {
            file: null,
            sizeError: sourceError(refused),
            dropParts: true,
            result: { kind: 'refused', error: refused },
          };
        }
        const file: FileRecord = {
          id: fileId,
          size: parts.reduce((sum, p) => sum + p.size, 0),
          type: contentTypeOf(source.ext),
          segments: parts.map((p) => ({ chunkFileId: p.chunkFileId, chunkSizes: p.chunkSizes })),
          createdAt: ctx.now(),
          uploadId: upload.uploadId,
        };
        noteMediaProblem(ctx, job, source, mediaProblemOf(source, head));
        // The parts' chunks now belong to the file: the part records go, the bytes stay.
        return { file, sizeError: null, dropParts: true, result: { kind: 'done' } };
      },
    );
    if (!outcome.found) throw ApiError.notFound(`job ${upload.jobId} not found`);
    if (outcome.result.kind === 'refused') throw outcome.result.error;
    if (outcome.result.kind === 'done') return json(200, { ok: true } satisfies OkResponse);
  }
  throw new ApiError(
    409,
    'part 1 of the upload keeps changing while it is completed; try again',
    {},
    {
      'Retry-After': '1',
    },
  );
}

/** abortMultipartUpload: POST {base}/uploads/abort. Discards the uploaded parts. */
export async function abortMultipartUpload(
  ctx: ServiceContext,
  accountId: string,
  request: Request,
): Promise<Response> {
  const upload = await multipartTarget(ctx, accountId, request);
  await dropParts(ctx.db, upload.uploadId);
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
    ...DOWNLOAD_HEADERS,
    'content-type': servedType(file.type),
    'accept-ranges': 'bytes',
    ...(name === null ? {} : { 'content-disposition': contentDisposition(name.trim() || `${fileId}.mp4`) }),
  };
  if (range === 'unsatisfiable') {
    return json(
      416,
      { error: `the range ${request.headers.get('range')} is outside the file (${file.size} bytes)` },
      { ...DOWNLOAD_HEADERS, 'content-range': `bytes */${file.size}` },
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
