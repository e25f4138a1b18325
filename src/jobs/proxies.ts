/**
 * A job's proxies in the job domain: which camera's proxy the engine builds next, how a built
 * (or refused) proxy is recorded on the job, and how the Job shows it. Proxies are the engine's
 * own background work after analysis (docs/proxies.md): a job is eligible once it waits in
 * mapping or later, and the job never waits on them.
 *
 * @module
 */
import type { JobStatus, SourceProxy } from '../contract/types.ts';
import type { JobRecord, SourceRecord, StoredProxy } from '../store/db.ts';
import { updateJob } from '../store/jobs.ts';

/** Statuses in which a job's cameras get proxies: analysis is done, a person may review. */
export const PROXY_STATUSES: ReadonlySet<JobStatus> = new Set<JobStatus>([
  'mapping',
  'ready',
  'rendering',
  'complete',
  'approved',
]);

/** Whether `source` of `job` is a camera that still needs its proxy built. */
export function needsProxy(job: Pick<JobRecord, 'status'>, source: SourceRecord): boolean {
  return PROXY_STATUSES.has(job.status) && source.kind === 'video' && source.fileId !== null && !source.proxyFile;
}

/** One proxy to build: a job's camera. */
export interface ProxyWork {
  jobId: string;
  sourceId: string;
}

/**
 * The next proxy to build: the oldest eligible job first (creation order), its cameras in the
 * job's order; `skip` holds `jobId/sourceId` keys the engine gave up on for now (a file used in
 * place that no page holds). Null when none is left.
 *
 * @example
 * nextProxyWork(jobs, new Set()); // { jobId: 'j1', sourceId: 'cam1' }
 */
export function nextProxyWork(
  jobs: readonly Pick<JobRecord, 'id' | 'seq' | 'status' | 'sources'>[],
  skip: ReadonlySet<string>,
): ProxyWork | null {
  const ordered = [...jobs].sort((a, b) => a.seq - b.seq);
  for (const job of ordered) {
    for (const source of job.sources) {
      if (!needsProxy(job, source) || skip.has(proxyKey(job.id, source.id))) continue;
      return { jobId: job.id, sourceId: source.id };
    }
  }
  return null;
}

/** The key of a job's camera in skip sets. */
export function proxyKey(jobId: string, sourceId: string): string {
  return `${jobId}/${sourceId}`;
}

/**
 * Records a camera's proxy on its job in one transaction. Resolves false when the job or the
 * source is gone (deleted while the proxy was built) or the source already has one: the caller
 * then deletes the file it stored, so no byte is left behind.
 */
export async function recordProxy(
  db: Parameters<typeof updateJob>[0],
  jobId: string,
  sourceId: string,
  proxy: StoredProxy,
): Promise<boolean> {
  const recorded = await updateJob(db, jobId, (job) => {
    const index = job.sources.findIndex((s) => s.id === sourceId);
    const source = job.sources[index];
    if (!source || source.proxyFile) return { job: null, result: false };
    const sources = job.sources.slice();
    sources[index] = { ...source, proxyFile: proxy };
    // Not a change of the job people edit: `updatedAt` stays.
    return { job: { ...job, sources }, result: true };
  });
  return recorded === true;
}

/**
 * A camera's proxy as the Job shows it (without its URL, which the view signs), or undefined
 * for mics and for jobs before analysis is done.
 */
export function proxyView(job: Pick<JobRecord, 'status'>, source: SourceRecord): SourceProxy | undefined {
  if (source.kind !== 'video' || !PROXY_STATUSES.has(job.status)) return undefined;
  const stored = source.proxyFile;
  if (!stored) return { status: source.fileId === null ? 'unavailable' : 'pending', ...noFile(source) };
  if (stored.status === 'ready') return { status: 'ready', width: stored.width, height: stored.height };
  return { status: stored.status, reason: stored.reason };
}

function noFile(source: SourceRecord): { reason?: string } {
  return source.fileId === null ? { reason: 'the camera has no uploaded file' } : {};
}
