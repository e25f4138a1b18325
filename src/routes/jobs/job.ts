/**
 * One job: getJob (GET /jobs/{id}) and deleteJob (DELETE /jobs/{id}).
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import type { OkResponse } from '../../contract/types.ts';
import type { ServiceContext } from '../../jobs/context.ts';
import { apiBaseOf } from '../../jobs/links.ts';
import { enforceMappingDeadline } from '../../jobs/mapping-decision.ts';
import { deleteFile, deleteUpload, uploadsOfJob } from '../../store/files.ts';
import { deleteJobRecord } from '../../store/jobs.ts';
import { toGetJobResponse, toSummary } from '../views.ts';
import { ownedJob, type JobOperation, type OperationResult } from './owned.ts';

/** getJob: GET /jobs/{id}[?view=summary]. */
export const getJob: JobOperation = async (ctx, accountId, jobId, request) => {
  let job = await ownedJob(ctx, accountId, jobId);
  if (await enforceMappingDeadline(ctx, job)) job = await ownedJob(ctx, accountId, jobId);
  const apiBase = apiBaseOf(ctx, request);
  const view = new URL(request.url).searchParams.get('view');
  return { body: view === 'summary' ? await toSummary(ctx, job, apiBase) : await toGetJobResponse(ctx, job, apiBase) };
};

/** deleteJob: DELETE /jobs/{id}; any status; every stored byte of the job goes. */
export async function deleteJob(ctx: ServiceContext, accountId: string, jobId: string): Promise<OperationResult> {
  const owned = await ownedJob(ctx, accountId, jobId);
  // The record goes first: a stage (or a proxy) finishing later finds no job and deletes its own
  // output. Its files are those of the record as deleted, so one recorded in between goes too.
  const job = (await deleteJobRecord(ctx.db, jobId)) ?? owned;
  await ctx.engine.cancel(jobId).catch(() => undefined);
  const failures: string[] = [];
  const fileIds = [
    ...job.sources.map((s) => s.fileId),
    ...job.sources.map((s) => (s.proxyFile?.status === 'ready' ? s.proxyFile.fileId : null)),
    job.audioFileId,
    job.outputFileId,
  ].filter((id): id is string => id !== null);
  for (const fileId of fileIds) await deleteFile(ctx.db, fileId).catch(() => failures.push(fileId));
  for (const upload of await uploadsOfJob(ctx.db, jobId))
    await deleteUpload(ctx.db, upload.uploadId).catch(() => failures.push(upload.uploadId));
  if (failures.length > 0)
    throw new ApiError(502, `some files could not be deleted (${failures.join(', ')}); try again`);
  return { body: { ok: true } satisfies OkResponse };
}
