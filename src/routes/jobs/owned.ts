/**
 * What every job operation shares: the result type, the caller's own job (or 404) and the
 * checks several operations make on a job.
 *
 * @module
 */
import { checkCutList } from '../../analysis/edit/cut-rules.ts';
import { ApiError } from '../../contract/errors.ts';
import type { Cut, TimeRange } from '../../contract/types.ts';
import type { ServiceContext } from '../../jobs/context.ts';
import type { JobRecord } from '../../store/db.ts';
import { getJobRecord } from '../../store/jobs.ts';
import { parseSourceIds } from '../../contract/validate.ts';

/** A response body with optional extra headers. */
export interface OperationResult {
  body: unknown;
  headers?: Record<string, string>;
}

/** An operation on one job of the caller that reads the request (its body, its URL). */
export type JobOperation = (
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
) => Promise<OperationResult>;

/** A job of the caller, or 404. */
export async function ownedJob(ctx: ServiceContext, accountId: string, jobId: string): Promise<JobRecord> {
  const job = await getJobRecord(ctx.db, jobId);
  if (!job || job.accountId !== accountId) throw ApiError.notFound(`job ${jobId} not found`);
  return job;
}

/** The ids of the job's video sources. */
export function videoIds(job: JobRecord): string[] {
  return job.sources.filter((s) => s.kind === 'video').map((s) => s.id);
}

/** A refused cut list is a 400 with the rule it breaks. */
export function checkCuts(job: JobRecord, cuts: readonly Cut[], removedRanges: readonly TimeRange[]): void {
  const bad = checkCutList(cuts, { sources: job.sources, removedRanges });
  if (bad) throw ApiError.badRequest(bad.message);
}

/** Editing needs a ready or complete job. */
export function requireEditable(job: JobRecord, operation: string): void {
  if (job.status !== 'ready' && job.status !== 'complete')
    throw ApiError.invalidStatus(job.status, `${operation} (the job must be ready or complete)`);
}

/** A body's optional `diarizeSourceIds` (null when absent), checked against the job's sources. */
export function diarizeSourceIdsOf(body: Record<string, unknown>, job: JobRecord): string[] | null {
  return body['diarizeSourceIds'] === undefined
    ? null
    : parseSourceIds(
        body['diarizeSourceIds'],
        'diarizeSourceIds',
        job.sources.map((s) => s.id),
        false,
      );
}
