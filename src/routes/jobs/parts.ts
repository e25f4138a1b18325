/**
 * A source's multipart upload: requestUploadPartUrls (POST /jobs/{id}/sources/{sourceId}/parts).
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import type { RequestUploadPartUrlsResponse } from '../../contract/types.ts';
import { parsePartNumbers, requireObject } from '../../contract/validate.ts';
import type { ServiceContext } from '../../jobs/context.ts';
import { apiBaseOf, partUploadUrl } from '../../jobs/links.ts';
import { readJson } from '../http.ts';
import { ownedJob, type OperationResult } from './owned.ts';

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
