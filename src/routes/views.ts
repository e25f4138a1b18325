/**
 * Stored job records as the contract shows them: Job and JobListItem (snake_case),
 * JobSummary and GetJobResponse (camelCase), with freshly signed URLs.
 *
 * @module
 */
import { nextAction } from '../contract/next-action.ts';
import {
  AUDIO_DEFAULTS,
  LIMITS,
  type GetJobResponse,
  type Job,
  type JobListItem,
  type JobSource,
  type JobSummary,
  type JobWarning,
} from '../contract/types.ts';
import type { JobRecord, SourceRecord } from '../store/db.ts';
import type { ServiceContext } from '../jobs/context.ts';
import { fileUrl, responseReviewUrl } from '../jobs/links.ts';
import { proxyView } from '../jobs/proxies.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The job's warnings as the contract shows them (records from before warnings have none). */
function warningsOf(job: JobRecord): JobWarning[] {
  return (job.warnings ?? []).map(({ at, ...rest }) => ({ ...rest, at: iso(at) }));
}

function toJobSource(source: SourceRecord): JobSource {
  const out: JobSource = { id: source.id, label: source.label, kind: source.kind, ext: source.ext };
  if (source.durationMs !== undefined) out.durationMs = source.durationMs;
  if (source.fileSize !== undefined) out.fileSize = source.fileSize;
  if (source.local === true) out.local = true;
  if (source.offsetMs !== undefined) out.offsetMs = source.offsetMs;
  if (source.driftPpm !== undefined) out.driftPpm = source.driftPpm;
  if (source.frameRate !== undefined) out.frameRate = source.frameRate;
  if (source.frameRateExact !== undefined) out.frameRateExact = { ...source.frameRateExact };
  if (source.variableFrameRate !== undefined) out.variableFrameRate = source.variableFrameRate;
  if (source.width !== undefined) out.width = source.width;
  if (source.height !== undefined) out.height = source.height;
  if (source.sampleRate !== undefined) out.sampleRate = source.sampleRate;
  if (source.channels !== undefined) out.channels = source.channels;
  if (source.timecode !== undefined) out.timecode = { ...source.timecode, frameRate: { ...source.timecode.frameRate } };
  return out;
}

/** A source as the Job shows it, with its proxy (cameras, once analysis is done) and the proxy's signed URL. */
async function sourceView(
  ctx: ServiceContext,
  job: JobRecord,
  source: SourceRecord,
  apiBase: string,
): Promise<JobSource> {
  const out = toJobSource(source);
  const proxy = proxyView(job, source);
  if (proxy) {
    const stored = source.proxyFile;
    out.proxy =
      stored?.status === 'ready'
        ? { ...proxy, url: await fileUrl(ctx, apiBase, stored.fileId, ctx.now() + LIMITS.sourceUrlValidityMs) }
        : proxy;
  }
  return out;
}

/** A freshly signed download URL of the render, or null before the first render. */
export function outputUrlOf(ctx: ServiceContext, job: JobRecord, apiBase: string): Promise<string | null> {
  if (job.outputFileId === null || (job.status !== 'complete' && job.status !== 'approved'))
    return Promise.resolve(null);
  return fileUrl(ctx, apiBase, job.outputFileId, ctx.now() + LIMITS.sourceUrlValidityMs);
}

/** The full Job. */
export async function toJob(ctx: ServiceContext, job: JobRecord, apiBase: string): Promise<Job> {
  return {
    id: job.id,
    title: job.title,
    status: job.status,
    sources: await Promise.all(job.sources.map((source) => sourceView(ctx, job, source, apiBase))),
    tracks: job.tracks,
    turns: job.turns,
    cuts: job.cuts,
    removed_ranges: job.removedRanges,
    camera_map: job.cameraMap,
    output_url: await outputUrlOf(ctx, job, apiBase),
    output_format: job.outputFormat ?? null,
    speaker_names: { ...(job.speakerNames ?? {}) },
    error_message: job.errorMessage,
    failed_at_status: job.failedAtStatus,
    review: job.review,
    auto_map: job.autoMap,
    callback_url: job.callbackUrl,
    warnings: warningsOf(job),
    audio: {
      ...(job.audio ?? AUDIO_DEFAULTS),
      gains: { ...(job.audioGains ?? {}) },
      ...(job.audioLevels ? { levels: structuredClone(job.audioLevels) } : {}),
    },
    created_at: iso(job.createdAt),
    updated_at: iso(job.updatedAt),
  };
}

/** A JobListItem (snake_case). */
export function toListItem(job: JobRecord): JobListItem {
  return {
    id: job.id,
    title: job.title,
    status: job.status,
    created_at: iso(job.createdAt),
    updated_at: iso(job.updatedAt),
  };
}

/** GetJobResponse: the job, download URLs of uploaded sources (one hour) and the speaker-detection audio. */
export async function toGetJobResponse(ctx: ServiceContext, job: JobRecord, apiBase: string): Promise<GetJobResponse> {
  const expiresAt = ctx.now() + LIMITS.sourceUrlValidityMs;
  const sourceUrls: Record<string, string> = {};
  for (const source of job.sources) {
    if (source.fileId !== null) sourceUrls[source.id] = await fileUrl(ctx, apiBase, source.fileId, expiresAt);
  }
  const audioUrl = job.audioFileId === null ? null : await fileUrl(ctx, apiBase, job.audioFileId, expiresAt);
  return { job: await toJob(ctx, job, apiBase), sourceUrls, audioUrl };
}

/** The running stage's fraction done: the render's progress, or an analysis stage's while the job is in it. */
function stageProgressOf(job: JobRecord): number | null {
  if (job.status === 'rendering') return job.progress ?? 0;
  const p = job.stageProgress;
  return p && p.stage === job.status ? p.fraction : null;
}

/** JobSummary with nextAction. */
export async function toSummary(ctx: ServiceContext, job: JobRecord, apiBase: string): Promise<JobSummary> {
  const outputUrl = await outputUrlOf(ctx, job, apiBase);
  // A review caller is shown its own link, never a new one (a link must not extend itself).
  const review = job.status === 'mapping' || job.status === 'ready' ? await responseReviewUrl(ctx, apiBase, job) : null;
  return {
    id: job.id,
    status: job.status,
    progress: job.status === 'rendering' ? (job.progress ?? 0) : null,
    stageProgress: stageProgressOf(job),
    nextAction: nextAction({
      status: job.status,
      failedAtStatus: job.failedAtStatus,
      failurePermanent: job.failurePermanent,
      reviewUrl: review,
      outputUrl,
    }),
    outputUrl,
    error: job.errorMessage,
    failedAtStatus: job.failedAtStatus,
    warnings: warningsOf(job),
    updatedAt: iso(job.updatedAt),
  };
}
