/**
 * revokeReviewLinks: POST /jobs/{id}/review-links/revoke (a contract extension, API key only).
 *
 * @module
 */
import type { OkResponse } from '../../contract/types.ts';
import type { ServiceContext } from '../../jobs/context.ts';
import { updateJob } from '../../store/jobs.ts';
import { ownedJob, type OperationResult } from './owned.ts';

/**
 * Revokes every review link of the job issued so far: its review-token version goes up by one,
 * so each earlier token answers 401 from the next request on. Links minted afterwards (the
 * summary's `nextAction.url`, later events) work. Any status; nothing else of the job changes.
 */
export async function revokeReviewLinks(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
): Promise<OperationResult> {
  await ownedJob(ctx, accountId, jobId);
  const found = await updateJob(ctx.db, jobId, (job) => {
    job.reviewTokenVersion = (job.reviewTokenVersion ?? 0) + 1;
    return { job, result: true };
  });
  // Deleted between the two reads: as if it had never been there.
  if (found === undefined) await ownedJob(ctx, accountId, jobId);
  return { body: { ok: true } satisfies OkResponse };
}
