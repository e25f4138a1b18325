/**
 * The whole REST contract as one function: `createHandler(ctx)(request) → Response`. The
 * service worker, the Node tests and msw all call the same function.
 *
 * @module
 */
import { isUnderBase } from '../contract/base-path.ts';
import { ApiError } from '../contract/errors.ts';
import { accountForApiKey } from '../store/accounts.ts';
import { getJobRecord } from '../store/jobs.ts';
import type { ServiceContext } from '../jobs/context.ts';
import { exportJobEdit } from './export.ts';
import { errorResponse, json } from './http.ts';
import { createJob, listJobs } from './jobs/collection.ts';
import { recutJob, updateCuts } from './jobs/cuts.ts';
import { deleteJob, getJob } from './jobs/job.ts';
import { submitSpeakerMapping } from './jobs/mapping.ts';
import type { OperationResult } from './jobs/owned.ts';
import { requestUploadPartUrls } from './jobs/parts.ts';
import { startProcessing } from './jobs/processing.ts';
import { approveJob, startRender } from './jobs/render.ts';
import { retryJob } from './jobs/retry.ts';
import { revokeReviewLinks } from './jobs/review-links.ts';
import { nameSpeakers } from './jobs/speakers.ts';
import * as uploads from './uploads.ts';

type Params = string[];
type AuthedOperation = (
  ctx: ServiceContext,
  accountId: string,
  request: Request,
  params: Params,
) => Promise<Response | OperationResult>;
type SignedOperation = (ctx: ServiceContext, request: Request, url: URL, params: Params) => Promise<Response>;

interface Route {
  pattern: RegExp;
  methods: Record<string, { auth: true; run: AuthedOperation } | { auth: false; run: SignedOperation }>;
}

const ID = '([^/]+)';

const authed = (run: AuthedOperation) => ({ auth: true as const, run });
const signed = (run: SignedOperation) => ({ auth: false as const, run });

/** Paths relative to the base path. */
const ROUTES: Route[] = [
  {
    pattern: /^\/jobs$/,
    methods: {
      GET: authed((ctx, account) => listJobs(ctx, account)),
      POST: authed((ctx, account, request) => createJob(ctx, account, request)),
    },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}$`),
    methods: {
      GET: authed((ctx, account, request, [id]) => getJob(ctx, account, id!, request)),
      DELETE: authed((ctx, account, _request, [id]) => deleteJob(ctx, account, id!)),
    },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/sources/${ID}/parts$`),
    methods: {
      POST: authed((ctx, account, request, [id, sourceId]) =>
        requestUploadPartUrls(ctx, account, id!, sourceId!, request),
      ),
    },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/process$`),
    methods: { POST: authed((ctx, a, r, [id]) => startProcessing(ctx, a, id!, r)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/tracks$`),
    methods: { POST: authed((ctx, a, r, [id]) => submitSpeakerMapping(ctx, a, id!, r)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/speakers$`),
    methods: { PUT: authed((ctx, a, r, [id]) => nameSpeakers(ctx, a, id!, r)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/recut$`),
    methods: { POST: authed((ctx, a, r, [id]) => recutJob(ctx, a, id!, r)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/cuts$`),
    methods: { PATCH: authed((ctx, a, r, [id]) => updateCuts(ctx, a, id!, r)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/render$`),
    methods: { POST: authed((ctx, a, _r, [id]) => startRender(ctx, a, id!)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/approve$`),
    methods: { POST: authed((ctx, a, _r, [id]) => approveJob(ctx, a, id!)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/retry$`),
    methods: { POST: authed((ctx, a, r, [id]) => retryJob(ctx, a, id!, r)) },
  },
  {
    // A contract extension (docs/contract.md): not in REVIEW_PATHS, so API keys only.
    pattern: new RegExp(`^/jobs/${ID}/review-links/revoke$`),
    methods: { POST: authed((ctx, a, _r, [id]) => revokeReviewLinks(ctx, a, id!)) },
  },
  {
    pattern: new RegExp(`^/jobs/${ID}/export$`),
    methods: { GET: authed((ctx, a, r, [id]) => exportJobEdit(ctx, a, id!, r)) },
  },
  {
    pattern: /^\/uploads\/complete$/,
    methods: { POST: authed((ctx, a, r) => uploads.completeMultipartUpload(ctx, a, r)) },
  },
  { pattern: /^\/uploads\/abort$/, methods: { POST: authed((ctx, a, r) => uploads.abortMultipartUpload(ctx, a, r)) } },
  {
    pattern: new RegExp(`^/signed/upload/${ID}/${ID}$`),
    methods: { PUT: signed((ctx, r, url, [jobId, sourceId]) => uploads.putSourceFile(ctx, r, url, jobId!, sourceId!)) },
  },
  {
    pattern: new RegExp(`^/signed/upload/${ID}/${ID}/parts/${ID}/(\\d+)$`),
    methods: {
      PUT: signed((ctx, r, url, [jobId, sourceId, uploadId, n]) =>
        uploads.putPartFile(ctx, r, url, jobId!, sourceId!, uploadId!, Number(n)),
      ),
    },
  },
  {
    pattern: new RegExp(`^/signed/files/${ID}$`),
    methods: {
      GET: signed((ctx, r, url, [fileId]) => uploads.downloadFile(ctx, r, url, fileId!)),
      HEAD: signed((ctx, r, url, [fileId]) => uploads.downloadFile(ctx, r, url, fileId!)),
    },
  },
];

/** What the hosted editor may do with a review token: read the job, map, name speakers, recut, edit cuts, render, approve, export the edit. */
const REVIEW_PATHS = new RegExp(`^/jobs/${ID}(/(tracks|speakers|recut|cuts|render|approve|export))?$`);

/** Who is calling: an account (API key), or a person holding a review link for one job. */
interface Caller {
  accountId: string;
  /** Set for review tokens: the only job this caller may touch. */
  reviewJobId: string | null;
  /** Set for review tokens: the token itself (responses show its own link, never a new one). */
  reviewToken: string | null;
}

/**
 * `Authorization: Bearer mc_live_…` (an account), or `Authorization: Review <token>` from a
 * `reviewUrl` (the hosted editor): that one job only, for 72 hours, until the job's review
 * links are revoked (the token's signed version is no longer the job's).
 */
async function authenticate(ctx: ServiceContext, request: Request): Promise<Caller> {
  const header = request.headers.get('authorization') ?? '';
  const review = /^Review\s+(\S+)\s*$/i.exec(header);
  if (review) {
    const token = review[1]!;
    const verified = await ctx.signer.verifyReviewToken(token, ctx.now());
    const job = 'jobId' in verified ? await getJobRecord(ctx.db, verified.jobId) : undefined;
    if (!job || !('version' in verified) || verified.version !== (job.reviewTokenVersion ?? 0))
      throw new ApiError(401, 'invalid, expired or revoked review token', {}, { 'WWW-Authenticate': 'Bearer' });
    return { accountId: job.accountId, reviewJobId: job.id, reviewToken: token };
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const accountId = match ? await accountForApiKey(ctx.db, match[1]!) : null;
  if (accountId === null) {
    throw new ApiError(
      401,
      header === '' ? 'missing API key: send Authorization: Bearer mc_live_…' : 'invalid or revoked API key',
      {},
      { 'WWW-Authenticate': 'Bearer' },
    );
  }
  return { accountId, reviewJobId: null, reviewToken: null };
}

/** The route handler over a service context. */
export function createHandler(ctx: ServiceContext): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      const url = new URL(request.url);
      if (!isUnderBase(ctx.basePath, url)) throw ApiError.notFound(`${url.pathname} is not under ${ctx.basePath}`);
      let path: string;
      try {
        path = decodeURIComponent(url.pathname.slice(ctx.basePath.length)) || '/';
      } catch {
        throw ApiError.badRequest(`the path ${url.pathname} is not validly percent-encoded`);
      }
      for (const route of ROUTES) {
        const match = route.pattern.exec(path);
        if (!match) continue;
        const method = request.method.toUpperCase();
        const operation = route.methods[method];
        if (!operation) {
          throw new ApiError(
            405,
            `${method} is not allowed on ${url.pathname}; allowed: ${Object.keys(route.methods).join(', ')}`,
            {},
            { Allow: Object.keys(route.methods).join(', ') },
          );
        }
        const params = match.slice(1);
        if (!operation.auth) return await operation.run(ctx, request, url, params);
        const caller = await authenticate(ctx, request);
        if (
          caller.reviewJobId !== null &&
          !(REVIEW_PATHS.test(path) && method !== 'DELETE' && params[0] === caller.reviewJobId)
        ) {
          // A review link opens one job in the editor; anything else needs an API key.
          throw new ApiError(
            401,
            'a review token only grants reading, mapping, editing, rendering, approving and exporting its own job',
          );
        }
        // A review caller's request runs on a context that knows its token (see ServiceContext.reviewToken).
        const callerCtx = caller.reviewToken === null ? ctx : { ...ctx, reviewToken: caller.reviewToken };
        const result = await operation.run(callerCtx, caller.accountId, request, params);
        return result instanceof Response ? result : json(200, result.body, result.headers);
      }
      throw ApiError.notFound(`no operation at ${url.pathname}`);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
