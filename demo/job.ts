/**
 * The demo's main job, as any client of the contract would run it: createJob, upload each
 * file to its signed URL (one PUT with the File as the body, or multipart with one slice per
 * part, so a file is streamed and never read whole into memory), startProcessing, then poll
 * the summary. The page and the command line (`multicam edit`, which drives this page) use
 * the same functions.
 *
 * @module
 */
import { proposalTracks } from '../src/analysis/camera/automap.ts';
import { MulticamClient } from '../src/client/client.ts';
import type {
  AudioSettings,
  AutoMapMode,
  CameraKind,
  Job,
  JobSummary,
  PresetId,
  SilenceMode,
  SourceExt,
  Track,
} from '../src/contract/types.ts';
import { SOURCE_EXTS } from '../src/contract/types.ts';

/** A file chosen by a person (input, drop), the built-in sample or the command line. */
export interface ChosenFile {
  file: Blob;
  name: string;
  label: string;
  kind: 'video' | 'audio';
  /**
   * A file on this computer the person picked (input, drop, file picker), which can be used in
   * place; false for the built-in sample (fetched bytes: stored as an upload).
   */
  picked: boolean;
  /** The File System Access handle, when the picker gave one (the file can be read after a reload). */
  handle?: FileSystemFileHandle;
}

/** Uses a picked file in place as a source's file (the library's `attachLocalFile`). */
export type AttachLocalFile = (
  jobId: string,
  sourceId: string,
  picked: File | FileSystemFileHandle,
) => Promise<unknown>;

/** The options a person picks before starting. */
export interface JobOptions {
  title?: string;
  review: boolean;
  autoMap: AutoMapMode;
  silence: SilenceMode;
  /** The render's loudness target and true-peak ceiling (createJob's `audio`); absent: the service's defaults. */
  audio?: AudioSettings;
  /** Where the events are POSTed as webhooks (the receiver must allow this origin by CORS). */
  callbackUrl?: string;
  /** Use picked files in place (nothing copied into storage) rather than uploading them. */
  inPlace: boolean;
}

/** The extension the contract wants, from a file name (`cam1.MP4` → `mp4`); null if unsupported. */
export function extOf(name: string): SourceExt | null {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return (SOURCE_EXTS as readonly string[]).includes(ext) ? (ext as SourceExt) : null;
}

/** Audio or video, from the MIME type, else the extension. */
export function kindOf(file: { name: string; type: string }): 'video' | 'audio' {
  if (file.type.startsWith('audio/')) return 'audio';
  if (file.type.startsWith('video/')) return 'video';
  return ['wav', 'mp3', 'm4a', 'aac'].includes(extOf(file.name) ?? '') ? 'audio' : 'video';
}

/** Uploads progress: bytes sent of the whole job. */
export type UploadProgress = (sentBytes: number, totalBytes: number, label: string) => void;

/**
 * Creates the job, uploads every file through its signed URL (or, with `options.inPlace` and
 * `attach`, uses each picked file in place: declared `local`, nothing copied) and starts
 * processing. Returns the job id. Errors are the client's ApiError (status, code, the field at
 * fault).
 */
export async function createAndStartJob(
  client: MulticamClient,
  files: readonly ChosenFile[],
  options: JobOptions,
  onProgress: UploadProgress = () => undefined,
  attach?: AttachLocalFile,
): Promise<string> {
  files.forEach((f, i) => {
    if (extOf(f.name) === null)
      throw new Error(`files[${i}] (${f.name}): unsupported extension; use one of ${SOURCE_EXTS.join(', ')}`);
  });
  const inPlace = (f: ChosenFile): boolean =>
    options.inPlace && attach !== undefined && f.picked && f.file instanceof File;
  const created = await client.createJob({
    sources: files.map((f) => ({
      label: f.label,
      kind: f.kind,
      ext: extOf(f.name) as SourceExt,
      fileSize: f.file.size,
      ...(inPlace(f) ? { local: true } : {}),
    })),
    ...(options.title ? { title: options.title } : {}),
    ...(options.callbackUrl ? { callbackUrl: options.callbackUrl } : {}),
    review: options.review,
    autoMap: options.autoMap,
    silence: { mode: options.silence },
    ...(options.audio ? { audio: options.audio } : {}),
  });
  const total = files.reduce((n, f) => n + f.file.size, 0);
  let sent = 0;
  // `uploads` is keyed by source id in the order of the request's sources.
  const entries = Object.values(created.uploads);
  for (const [i, upload] of entries.entries()) {
    const chosen = files[i];
    if (!chosen) throw new Error(`createJob returned ${entries.length} uploads for ${files.length} files`);
    if (attach && inPlace(chosen)) {
      await attach(created.jobId, Object.keys(created.uploads)[i] as string, chosen.handle ?? (chosen.file as File));
      sent += chosen.file.size;
      onProgress(sent, total, chosen.label);
      continue;
    }
    if (upload.method === 'put') {
      await client.upload(upload.url, chosen.file);
      sent += chosen.file.size;
      onProgress(sent, total, chosen.label);
      continue;
    }
    // Multipart: ask for part URLs 16 at a time, PUT one slice per part.
    const sourceId = Object.keys(created.uploads)[i] as string;
    for (let first = 1; first <= upload.partCount; first += 16) {
      const partNumbers = Array.from({ length: Math.min(16, upload.partCount - first + 1) }, (_, k) => first + k);
      const { urls } = await client.requestUploadPartUrls(created.jobId, sourceId, {
        uploadId: upload.uploadId,
        partNumbers,
      });
      for (const n of partNumbers) {
        const url = urls[String(n)];
        if (url === undefined)
          throw new Error(`requestUploadPartUrls returned no URL for part ${n} of ${chosen.label}`);
        const slice = chosen.file.slice((n - 1) * upload.partSize, n * upload.partSize);
        await client.upload(url, slice);
        sent += slice.size;
        onProgress(sent, total, chosen.label);
      }
    }
    await client.completeMultipartUpload({ key: upload.key, uploadId: upload.uploadId });
  }
  await client.startProcessing(created.jobId);
  return created.jobId;
}

/** The service's camera map proposal for a job in `mapping`, or null: see {@link proposalTracks}. */
export function proposedTracks(job: Pick<Job, 'sources' | 'camera_map'>): Track[] | null {
  return proposalTracks(
    job.camera_map,
    job.sources.filter((s) => s.kind === 'video').map((s) => s.id),
  );
}

/** Statuses after which nothing more happens without a person or a client call. */
export function isSettled(summary: Pick<JobSummary, 'status'>): boolean {
  return summary.status === 'complete' || summary.status === 'approved' || summary.status === 'failed';
}

/** Presets the page and the CLI offer for a recut in `ready`. */
export type { PresetId };

/** A camera kind in words. */
const KIND_WORDS: Record<CameraKind, string> = {
  closeup: 'close-up',
  twoshot: 'two-shot',
  wide: 'wide',
  multi: 'several people in turn',
  unknown: '',
};

/** One camera on the page's "who is on which camera" strip. */
export interface CameraCard {
  sourceId: string;
  label: string;
  /** Who the camera shows, in words: the mapping's speakers by name, a proposal, or nobody. */
  who: string;
  /** `mapped`: the edit uses it for these speakers; `proposed`: the camera map's answer, not yet used; `unused`: nobody. */
  state: 'mapped' | 'proposed' | 'unused';
  /** Where in the camera's own file to show a frame (ms): mid-way through its speaker's longest turn. */
  frameMs: number;
}

/**
 * Who is on which camera, once the camera map is in (or a person mapped): one card per camera
 * with the speakers by the names the job shows, from the mapping when there is one, else the
 * camera map's proposal; a camera with nobody says so (the job's warning says why).
 *
 * @example
 * cameraCards(job).map((c) => `${c.label}: ${c.who}`); // ['Cam 1: Ada (SPEAKER_00)', …]
 */
export function cameraCards(
  job: Pick<Job, 'sources' | 'tracks' | 'camera_map' | 'turns' | 'speaker_names'>,
): CameraCard[] {
  const mapped = job.tracks.length > 0;
  const name = (s: string): string => {
    const given = job.speaker_names[s];
    return given ? `${given} (${s})` : s;
  };
  return job.sources
    .filter((s) => s.kind === 'video')
    .map((source) => {
      const proposal = job.camera_map?.cameras.find((c) => c.sourceId === source.id);
      const speakers = mapped
        ? (job.tracks.find((t) => t.sourceId === source.id)?.speakers ?? [])
        : (proposal?.speakers ?? []);
      const state: CameraCard['state'] = speakers.length === 0 ? 'unused' : mapped ? 'mapped' : 'proposed';
      const kind = proposal && proposal.kind !== 'unknown' ? `${KIND_WORDS[proposal.kind]}: ` : '';
      const who =
        state === 'unused'
          ? mapped
            ? 'nobody: not used in the edit'
            : 'nobody matched yet'
          : `${kind}${speakers.map(name).join(', ')}${state === 'proposed' ? ` (proposed, confidence ${proposal?.confidence ?? 'none'})` : ''}`;
      // A frame from the middle of the longest turn of the first speaker shown, in the camera's own time.
      const longest = job.turns
        .filter((t) => t.speaker === speakers[0])
        .reduce<{ startMs: number; endMs: number } | null>(
          (best, t) => (best === null || t.endMs - t.startMs > best.endMs - best.startMs ? t : best),
          null,
        );
      const durationMs = source.durationMs ?? 0;
      const atRef = longest ? (longest.startMs + longest.endMs) / 2 : (source.offsetMs ?? 0) + durationMs / 3;
      const frameMs = Math.max(0, Math.min(Math.max(0, durationMs - 100), atRef - (source.offsetMs ?? 0)));
      return { sourceId: source.id, label: source.label, who, state, frameMs: Math.round(frameMs) };
    });
}
