/**
 * Export a job's edit to editing software: FCPXML (Final Cut Pro, Resolve), Premiere XML
 * (xmeml), OpenTimelineIO and CMX 3600 EDL, with each heard source's clip gain where the format
 * carries one ({@link clipGains}). Pure: a job (or any object with its sources, cuts
 * and removed ranges) in, a file (name, type, text) out; no fetch, no IndexedDB. The route
 * `GET {base}/jobs/{id}/export` and the editor's download menu both call {@link exportEdit}.
 *
 * @module
 */
import type { Job, JobAudio, JobSource } from '../contract/types.ts';
import { writeEdl } from './edl.ts';
import { ExportError } from './errors.ts';
import { writeFcpxml } from './fcpxml.ts';
import { writeOtio } from './otio.ts';
import { timecodeFrames } from '../media/timecode.ts';
import { frameRateOf, supportsDropFrame, timebaseOf, type FrameRate } from './rate.ts';
import { buildTimeline, DEFAULT_HEIGHT, DEFAULT_WIDTH, type ClipGain } from './timeline.ts';
import { writeXmeml } from './xmeml.ts';

export { ExportError } from './errors.ts';
export { writeEdl, type EdlOptions } from './edl.ts';
export { writeFcpxml, FCPXML_VERSION, type FcpxmlOptions } from './fcpxml.ts';
export { aafMobId, writeOtio, type OtioOptions } from './otio.ts';
export { frameRateOf, fromTimecode, rationalSeconds, toTimecode, type FrameRate } from './rate.ts';
export {
  buildTimeline,
  MUTED_DB,
  reelNames,
  timecodeStartAt,
  type ClipGain,
  type EditTimeline,
  type ExportSource,
  type TimelineEvent,
  type TimelineInput,
} from './timeline.ts';
export { writeXmeml, type XmemlOptions } from './xmeml.ts';

/** The export formats, as the route's `format` parameter names them. */
export const EXPORT_FORMATS = ['fcpxml', 'xmeml', 'otio', 'edl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What {@link exportEdit} reads of a job (a Job from getJob fits). */
export type ExportableJob = Pick<Job, 'id' | 'title' | 'sources' | 'cuts' | 'removed_ranges'> &
  Partial<Pick<Job, 'speaker_names'>> & {
    /** The sound settings, the gains a person set and the recorded levels (the clips' gains); none: unity. */
    audio?: Pick<JobAudio, 'loudness' | 'gains'> & Partial<Pick<JobAudio, 'levels'>>;
  };

/** The sources whose sound the edit hears: the audio sources, else the cameras (as the render mixes them). */
export function mixedSources(job: Pick<ExportableJob, 'sources'>): JobSource[] {
  const audio = job.sources.filter((s) => s.kind === 'audio');
  return audio.length > 0 ? audio : job.sources.filter((s) => s.kind === 'video');
}

/**
 * Each heard source's clip gain in the exports: the levelling planned for the one speaker it
 * carries (the Job's `audio.levels`, measured by the analysis: their speech brought to the mean
 * of all speakers') plus the gain a person set on it (`audio.gains`), in dB; or muted. A source
 * that carries several speakers (a single mix: its levelling changes from turn to turn), none
 * (room sound), or a job without recorded levels (analysed before they were measured) or with
 * `loudness: 'off'` (the render levels nothing) gets the person's gain alone. The render's master
 * gain, ride and limiter are not written: they finish the mix, which the editing software now does.
 * Sources at 0 dB and not muted are left out.
 *
 * @example
 * clipGains(job); // { src_mic1: { db: -4.5, levellingDb: -3, nudgeDb: -1.5, muted: false } }
 */
export function clipGains(job: Pick<ExportableJob, 'sources' | 'audio'>): Record<string, ClipGain> {
  const levels = job.audio?.loudness === 'off' ? undefined : job.audio?.levels;
  const out: Record<string, ClipGain> = {};
  for (const source of mixedSources(job)) {
    const speakers = levels?.sources.find((l) => l.source_id === source.id)?.speakers ?? [];
    const levellingDb = speakers.length === 1 && Number.isFinite(speakers[0]!.gain_db) ? speakers[0]!.gain_db : 0;
    const nudge = job.audio?.gains[source.id] ?? 0;
    const muted = nudge === 'mute';
    const nudgeDb = muted || !Number.isFinite(nudge) ? 0 : nudge;
    const db = Math.round((levellingDb + nudgeDb) * 100) / 100;
    if (db !== 0 || muted) out[source.id] = { db, levellingDb, nudgeDb, muted };
  }
  return out;
}

/** Options of {@link exportEdit}; every field has a default. */
export interface ExportOptions {
  /**
   * Frame rate (23.976, 24, 25, 29.97, 30, 50, 59.94, 60, …), overriding the default: the main
   * camera's probed `frameRateExact` (or `frameRate`), else `defaultFps`.
   */
  fps?: number;
  /** Rate when neither `fps` nor a probed rate is known. Default 30. */
  defaultFps?: number;
  /** Drop-frame timecode at 29.97/59.94 (EDL, xmeml, FCPXML display). Default true. */
  dropFrame?: boolean;
  /** EDL only: 0 the switched edit (default), N only camera N. */
  track?: number;
  /** Frame size of the timeline (FCPXML and xmeml formats, OTIO metadata). Default the main camera's probed size, else 1920×1080. */
  width?: number;
  height?: number;
  /** Prefix of every media URL (e.g. `file:///Volumes/Podcast/ep12/`); default bare file names, relinked by the editor. */
  mediaRoot?: string;
  /**
   * Timecode of the timeline's first frame in every format (EDL record side, FCPXML sequence
   * `tcStart`, xmeml sequence `<timecode>`, OTIO `global_start_time`): `HH:MM:SS:FF`, read in the
   * export's timecode (drop-frame at 29.97/59.94 unless `dropFrame: false`). Default `01:00:00:00`.
   */
  recordStart?: string;
}

/** The record start editors expect of a program: one hour. */
export const DEFAULT_RECORD_START = '01:00:00:00';

/**
 * The record start as a frame count at `rate`, read in the export's timecode (`01:00:00:00` is
 * frame 107 892 in 29.97 drop-frame, 108 000 non-drop). Throws {@link ExportError} (`recordStart`)
 * for anything but a valid label at that rate.
 */
export function recordStartFrames(label: string, rate: FrameRate, dropFrame: boolean): number {
  const drop = dropFrame && supportsDropFrame(rate);
  const frames = timecodeFrames(label, rate, drop);
  if (frames === null)
    throw new ExportError(
      'recordStart',
      `recordStart must be a timecode HH:MM:SS:FF with frames below ${timebaseOf(rate)}${drop ? ' that exists in drop-frame' : ''} (got "${label}")`,
    );
  return frames;
}

/** An exported file. */
export interface ExportedFile {
  format: ExportFormat;
  filename: string;
  contentType: string;
  body: string;
  rate: FrameRate;
}

const FILE_TYPES: Record<ExportFormat, { ext: string; contentType: string }> = {
  fcpxml: { ext: 'fcpxml', contentType: 'application/xml; charset=utf-8' },
  xmeml: { ext: 'xml', contentType: 'application/xml; charset=utf-8' },
  otio: { ext: 'otio', contentType: 'application/json; charset=utf-8' },
  edl: { ext: 'edl', contentType: 'text/plain; charset=utf-8' },
};

/** Whether `value` names an export format. */
export function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** The main camera: the video source live longest in the cuts (the first video source when there are none). */
export function mainCamera(job: Pick<ExportableJob, 'sources' | 'cuts'>): JobSource | undefined {
  const live = new Map<string, number>();
  for (const c of job.cuts) live.set(c.sourceId, (live.get(c.sourceId) ?? 0) + Math.max(0, c.endMs - c.startMs));
  const main = [...live.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return job.sources.find((s) => s.id === main) ?? job.sources.find((s) => s.kind === 'video');
}

/** A probed exact rate the writers can express: whole, or NTSC (`n·1000/1001`), from 1 to 240 fps. */
function writableRate(rate: JobSource['frameRateExact']): FrameRate | null {
  if (!rate || !Number.isInteger(rate.num) || !Number.isInteger(rate.den) || rate.den <= 0) return null;
  const fps = rate.num / rate.den;
  if (!(fps >= 1 && fps <= 240)) return null;
  if (rate.num % rate.den === 0) return { num: rate.num / rate.den, den: 1 };
  if (rate.den === 1001 && rate.num % 1000 === 0) return { num: rate.num, den: 1001 };
  return null;
}

/**
 * The frame rate of an export: `fps` if given, else the main camera's (the video source live
 * longest) probed `frameRateExact` (30000/1001 stays exact), else its `frameRate` (a rate
 * writers cannot express, such as 14.985, becomes the nearest whole rate), else `defaultFps` (30).
 */
export function exportRate(job: ExportableJob, options: Pick<ExportOptions, 'fps' | 'defaultFps'> = {}): FrameRate {
  if (options.fps !== undefined) return frameRateOf(options.fps, 'fps');
  const main = mainCamera(job);
  const exact = writableRate(main?.frameRateExact);
  if (exact) return exact;
  const probed = main?.frameRate;
  if (probed !== undefined && Number.isFinite(probed) && probed > 0) {
    try {
      return frameRateOf(probed, `sources[${job.sources.indexOf(main!)}].frameRate`);
    } catch {
      return frameRateOf(Math.min(240, Math.max(1, Math.round(probed))));
    }
  }
  return frameRateOf(options.defaultFps ?? 30, 'defaultFps');
}

/** The frame size of an export: `width`/`height` if given, else the main camera's probed size, else 1920×1080. */
export function exportFrameSize(
  job: ExportableJob,
  options: Pick<ExportOptions, 'width' | 'height'> = {},
): { width: number; height: number } {
  const main = mainCamera(job);
  const probed =
    main?.width !== undefined && main.height !== undefined && main.width > 0 && main.height > 0
      ? { width: main.width, height: main.height }
      : { width: DEFAULT_WIDTH, height: DEFAULT_HEIGHT };
  return { width: options.width ?? probed.width, height: options.height ?? probed.height };
}

/** A file name without characters that file systems or headers refuse. */
function safeFileName(name: string): string {
  return (
    name
      // eslint-disable-next-line no-control-regex -- control characters are what it removes
      .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_')
      .trim()
      .slice(0, 120) || 'multicam'
  );
}

/**
 * Exports the job's current edit (cuts minus removed ranges, sources synced) in `format`.
 * Throws {@link ExportError} naming the field at fault (`format`, `fps`, `track`, `cuts`, …).
 *
 * @example
 * const { job } = await client.getJob(jobId);
 * const file = exportEdit(job, 'fcpxml', { fps: 29.97 });
 * const url = URL.createObjectURL(new Blob([file.body], { type: file.contentType })); // download as file.filename
 */
export function exportEdit(job: ExportableJob, format: string, options: ExportOptions = {}): ExportedFile {
  if (!isExportFormat(format))
    throw new ExportError('format', `format must be one of ${EXPORT_FORMATS.join(', ')} (got "${format}")`);
  if (job.cuts.length === 0) throw new ExportError('cuts', `job ${job.id} has no cuts to export yet`);
  const rate = exportRate(job, options);
  const recordStart = recordStartFrames(options.recordStart ?? DEFAULT_RECORD_START, rate, options.dropFrame ?? true);
  const name = job.title ?? job.id;
  const timeline = buildTimeline({
    name,
    sources: job.sources,
    cuts: job.cuts,
    removedRanges: job.removed_ranges ?? [],
    rate,
    recordStart,
    ...exportFrameSize(job, options),
    ...(job.speaker_names === undefined ? {} : { speakerNames: job.speaker_names }),
    gains: clipGains(job),
    ...(options.mediaRoot === undefined ? {} : { mediaRoot: options.mediaRoot }),
  });
  const frame = { width: timeline.width, height: timeline.height };
  const dropFrame = options.dropFrame === undefined ? {} : { dropFrame: options.dropFrame };
  let body: string;
  switch (format) {
    case 'fcpxml':
      body = writeFcpxml(timeline, { ...frame, ...dropFrame });
      break;
    case 'xmeml':
      body = writeXmeml(timeline, { ...frame, ...dropFrame });
      break;
    case 'otio':
      body = writeOtio(timeline, { documentId: job.id });
      break;
    case 'edl':
      body = writeEdl(timeline, { ...dropFrame, ...(options.track === undefined ? {} : { track: options.track }) });
      break;
  }
  const { ext, contentType } = FILE_TYPES[format];
  const suffix =
    format === 'edl' && (options.track ?? 0) > 0 ? ` - ${timeline.cameras[options.track! - 1]!.label}` : '';
  // timeline.name and the labels are plain lines (no lone surrogate for encodeURIComponent to throw on).
  return { format, filename: `${safeFileName(timeline.name + suffix)}.${ext}`, contentType, body, rate };
}
