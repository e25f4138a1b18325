/**
 * Signed links of a job: upload URLs, part URLs, download URLs and review links. Each is built
 * from an API base (`origin + basePath`): the request's for operation responses, the one the
 * job was created under for events.
 *
 * @module
 */
import { LIMITS } from '../contract/types.ts';
import type { JobRecord } from '../store/db.ts';
import type { ServiceContext } from './context.ts';

/** `origin + basePath` of a request. */
export function apiBaseOf(ctx: ServiceContext, request: Request): string {
  return new URL(request.url).origin + ctx.basePath;
}

async function signed(
  ctx: ServiceContext,
  apiBase: string,
  method: string,
  rest: string,
  expiresAt: number,
): Promise<string> {
  const base = new URL(apiBase);
  const path = base.pathname.replace(/\/$/, '') + rest;
  return base.origin + path + (await ctx.signer.signQuery(method, path, expiresAt));
}

/** PUT URL of a whole source file, valid one hour. */
export function putUploadUrl(ctx: ServiceContext, apiBase: string, jobId: string, sourceId: string): Promise<string> {
  return signed(ctx, apiBase, 'PUT', `/signed/upload/${jobId}/${sourceId}`, ctx.now() + LIMITS.putUrlValidityMs);
}

/** PUT URL of one part of a multipart upload, valid two hours. */
export function partUploadUrl(
  ctx: ServiceContext,
  apiBase: string,
  jobId: string,
  sourceId: string,
  uploadId: string,
  partNumber: number,
): Promise<string> {
  return signed(
    ctx,
    apiBase,
    'PUT',
    `/signed/upload/${jobId}/${sourceId}/parts/${uploadId}/${partNumber}`,
    ctx.now() + LIMITS.partUrlValidityMs,
  );
}

/** GET URL (Range supported) of a stored file. */
export function fileUrl(ctx: ServiceContext, apiBase: string, fileId: string, expiresAt: number): Promise<string> {
  return signed(ctx, apiBase, 'GET', `/signed/files/${fileId}`, expiresAt);
}

/** The review editor link, valid 72 hours. */
export async function reviewUrl(ctx: ServiceContext, apiBase: string, jobId: string): Promise<string> {
  const token = await ctx.signer.reviewToken(jobId, ctx.now() + LIMITS.reviewLinkValidityMs);
  return `${new URL(apiBase).origin}/review/?token=${encodeURIComponent(token)}`;
}

/** The render's download URL as events carry it: valid seven days after the render finished. */
export function eventOutputUrl(
  ctx: ServiceContext,
  job: Pick<JobRecord, 'apiBase'>,
  outputFileId: string,
  renderedAt: number,
): Promise<string> {
  return fileUrl(ctx, job.apiBase, outputFileId, renderedAt + LIMITS.outputUrlValidityMs);
}
