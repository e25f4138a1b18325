/**
 * Signed links of a job: upload URLs, part URLs, download URLs and review links. Each is built
 * from an API base (`origin + basePath`): the request's for operation responses, the one the
 * job was created under for events; where the service knows the page's origin
 * (`ctx.pageOrigin`, always in the service worker) that origin replaces the base's. A client
 * may call a foreign base URL the app configured (`https://api.example.com/api`), but a link
 * must not send its signature, a review token or a person's file to that host: the page's
 * origin is the one the worker answers for every controlled page, whatever is configured when
 * the link is used (an upload URL lives two hours, a configuration can change in between).
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

/** The origin links are built on: the page's where known, else the API base's. */
function linkOrigin(ctx: ServiceContext, apiBase: string): string {
  return ctx.pageOrigin ?? new URL(apiBase).origin;
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
  return linkOrigin(ctx, apiBase) + path + (await ctx.signer.signQuery(method, path, expiresAt));
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

/** The review editor link of `token`. */
function reviewLink(ctx: ServiceContext, apiBase: string, token: string): string {
  return `${linkOrigin(ctx, apiBase)}/review/?token=${encodeURIComponent(token)}`;
}

/** A new review editor link, valid 72 hours, for the job's current review-token version. */
export async function reviewUrl(
  ctx: ServiceContext,
  apiBase: string,
  job: Pick<JobRecord, 'id' | 'reviewTokenVersion'>,
): Promise<string> {
  const token = await ctx.signer.reviewToken(
    job.id,
    ctx.now() + LIMITS.reviewLinkValidityMs,
    job.reviewTokenVersion ?? 0,
  );
  return reviewLink(ctx, apiBase, token);
}

/**
 * The review link a response shows its caller: a new one for an API-key caller, but a review
 * caller's own link unchanged (`ctx.reviewToken`), so a review token can never obtain a later
 * expiry by reading the summary.
 */
export function responseReviewUrl(
  ctx: ServiceContext,
  apiBase: string,
  job: Pick<JobRecord, 'id' | 'reviewTokenVersion'>,
): Promise<string> {
  return ctx.reviewToken === undefined
    ? reviewUrl(ctx, apiBase, job)
    : Promise.resolve(reviewLink(ctx, apiBase, ctx.reviewToken));
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
