/**
 * exportEdit: `GET {base}/jobs/{id}/export?format=fcpxml|xmeml|otio|edl[&track=N][&fps=F][&timecode=df|ndf][&recordStart=HH:MM:SS:FF][&mediaRoot=URL]`,
 * an additive extension of the contract. The job's current edit as a file for Final Cut Pro,
 * Resolve, Premiere or Avid (src/export). Same auth and 404 rules as getJob; 409 INVALID_STATUS
 * before the job has cuts (status other than ready, rendering, complete, approved), 409 NO_CUTS
 * when it has none; 400 naming the query parameter at fault.
 *
 * @module
 */
import { ApiError } from '../contract/errors.ts';
import { AUDIO_DEFAULTS, type JobStatus } from '../contract/types.ts';
import {
  EXPORT_FORMATS,
  ExportError,
  exportEdit,
  isExportFormat,
  type ExportFormat,
  type ExportOptions,
} from '../export/index.ts';
import type { ServiceContext } from '../jobs/context.ts';
import { contentDisposition } from './http.ts';
import { ownedJob } from './jobs/owned.ts';

/** Statuses in which a job has an edit to export. */
const EXPORTABLE: ReadonlySet<JobStatus> = new Set(['ready', 'rendering', 'complete', 'approved']);

/** A query parameter as a number, or 400 naming it. */
function numberParam(
  params: URLSearchParams,
  name: string,
  check: (n: number) => boolean,
  want: string,
): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || !check(n)) throw ApiError.badRequest(`${name} must be ${want} (got "${raw}")`);
  return n;
}

/** The export options of the query (fps, track, timecode, recordStart, mediaRoot), each checked. */
function exportOptionsOf(params: URLSearchParams, format: ExportFormat): ExportOptions {
  const options: ExportOptions = {};
  const fps = numberParam(
    params,
    'fps',
    (n) => n >= 1 && n <= 240,
    'a frame rate from 1 to 240 such as 23.976, 25 or 29.97',
  );
  if (fps !== undefined) options.fps = fps;
  const track = numberParam(
    params,
    'track',
    (n) => Number.isInteger(n) && n >= 0,
    'an integer >= 0 (0: the switched edit, N: camera N)',
  );
  if (track !== undefined) {
    if (format !== 'edl') throw ApiError.badRequest(`track applies to format=edl only (got format=${format})`);
    options.track = track;
  }
  const timecode = params.get('timecode');
  if (timecode !== null) {
    if (timecode !== 'df' && timecode !== 'ndf')
      throw ApiError.badRequest(`timecode must be df or ndf (got "${timecode}")`);
    options.dropFrame = timecode === 'df';
  }
  const recordStart = params.get('recordStart');
  if (recordStart !== null && recordStart !== '') {
    // The shape here; whether the label exists at the export's rate, in exportEdit (400 too).
    if (!/^\d{2}:\d{2}:\d{2}[:;]\d{2}$/.test(recordStart))
      throw ApiError.badRequest(
        `recordStart must be a timecode HH:MM:SS:FF such as 01:00:00:00 (got "${recordStart}")`,
      );
    options.recordStart = recordStart;
  }
  const mediaRoot = params.get('mediaRoot');
  if (mediaRoot !== null && mediaRoot !== '') {
    // Only URLs an editor can open as a folder of media: file:, http:, https:.
    let ok: boolean;
    try {
      ok = ['file:', 'http:', 'https:'].includes(new URL(mediaRoot).protocol);
    } catch {
      ok = false;
    }
    if (!ok)
      throw ApiError.badRequest(
        `mediaRoot must be an absolute file:, http: or https: URL such as file:///Volumes/Podcast/ep12/ (got "${mediaRoot}")`,
      );
    options.mediaRoot = mediaRoot;
  }
  return options;
}

/** exportEdit: GET /jobs/{id}/export. */
export async function exportJobEdit(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  request: Request,
): Promise<Response> {
  const job = await ownedJob(ctx, accountId, jobId);
  const params = new URL(request.url).searchParams;
  const format = params.get('format');
  if (format === null || !isExportFormat(format)) {
    throw ApiError.badRequest(
      `format must be one of ${EXPORT_FORMATS.join(', ')} (got ${format === null ? 'none' : `"${format}"`})`,
    );
  }
  const options = exportOptionsOf(params, format);
  if (!EXPORTABLE.has(job.status)) {
    throw ApiError.withCode(
      'INVALID_STATUS',
      `job ${jobId} has no edit to export yet (status ${job.status}); export works once the job is ready`,
      { status: job.status },
    );
  }
  if (job.cuts.length === 0) throw ApiError.withCode('NO_CUTS', `job ${jobId} has no cuts to export`);
  let file;
  try {
    file = exportEdit(
      {
        id: job.id,
        title: job.title,
        sources: job.sources,
        cuts: job.cuts,
        removed_ranges: job.removedRanges,
        speaker_names: job.speakerNames ?? {},
        // The clips' gains: the levelling planned at analysis plus the gains a person set.
        audio: {
          loudness: (job.audio ?? AUDIO_DEFAULTS).loudness,
          gains: job.audioGains ?? {},
          ...(job.audioLevels ? { levels: job.audioLevels } : {}),
        },
      },
      format,
      options,
    );
  } catch (error) {
    if (error instanceof ExportError) throw ApiError.badRequest(`${error.field}: ${error.message}`);
    throw error;
  }
  return new Response(file.body, {
    status: 200,
    headers: {
      'content-type': file.contentType,
      'content-disposition': contentDisposition(file.filename),
      'cache-control': 'no-store',
    },
  });
}
