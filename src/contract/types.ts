/**
 * The types of the multicam REST contract (`api-v1`), exactly as the spec names them.
 * Job-level records (Job, JobListItem) are snake_case; everything else is camelCase.
 * All times in cuts, turns and ranges are milliseconds in source (reference) time.
 *
 * @module
 */

export const JOB_STATUSES = [
  'created',
  'uploading',
  'syncing',
  'diarizing',
  'mapping',
  'ready',
  'rendering',
  'complete',
  'approved',
  'failed',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The stages that run in the background and can fail. */
export type PipelineStage = 'syncing' | 'diarizing' | 'rendering';

export const SOURCE_KINDS = ['video', 'audio'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const SOURCE_EXTS = ['mp4', 'mov', 'webm', 'mkv', 'wav', 'mp3', 'm4a', 'aac'] as const;
export type SourceExt = (typeof SOURCE_EXTS)[number];

export const AUTO_MAP_MODES = ['off', 'confident', 'always'] as const;
export type AutoMapMode = (typeof AUTO_MAP_MODES)[number];

export const SILENCE_MODES = ['off', 'tighten', 'remove'] as const;
export type SilenceMode = (typeof SILENCE_MODES)[number];

export const PRESET_IDS = ['relaxed', 'balanced', 'dynamic'] as const;
export type PresetId = (typeof PRESET_IDS)[number];

export const NEXT_ACTION_TYPES = [
  'upload_files',
  'wait',
  'map_speakers',
  'review_or_render',
  'download',
  'retry',
  'contact_support',
] as const;
export type NextActionType = (typeof NEXT_ACTION_TYPES)[number];

export const EVENT_TYPES = ['mapping', 'ready', 'complete', 'approved', 'failed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface SourceInput {
  label: string;
  kind?: SourceKind;
  ext?: SourceExt;
  fileSize?: number;
}

/** A source of a job. Extra fields (sync offset, drift, probe results) are allowed by the spec. */
export interface JobSource {
  id: string;
  label: string;
  kind: SourceKind;
  ext: string;
  durationMs?: number;
  fileSize?: number;
  /**
   * Additive: the page uses this file in place (`attachLocalFile`), so its bytes are never
   * stored; createJob's storage check leaves it out. Requires `fileSize`.
   */
  local?: boolean;
  /** Where this source starts on the reference timeline, in ms (set by syncing). */
  offsetMs?: number;
  /** Clock drift of this source against the reference, in parts per million (set by syncing). */
  driftPpm?: number;
  /** Video frame rate in frames per second, when probing found it (edit exports use the main camera's). */
  frameRate?: number;
  /** Additive: the same rate as an exact fraction of frames per second (29.97 is `{ num: 30000, den: 1001 }`). */
  frameRateExact?: FrameRateFraction;
  /** Additive: the video's frame durations vary (a phone's variable frame rate); `frameRate` is then the nearest standard rate to its average. */
  variableFrameRate?: boolean;
  /** Additive: the video's display frame size in pixels (after rotation and pixel aspect ratio). */
  width?: number;
  height?: number;
  /** Additive: the audio track's sample rate in Hz and channel count, when probing found them. */
  sampleRate?: number;
  channels?: number;
  /** Additive: the file's start timecode (MP4/MOV `tmcd` track, Matroska `TIMECODE` tag), when it has one. */
  timecode?: SourceTimecode;
  /**
   * Additive, cameras only, once analysis is done (status `mapping` and later): the light copy the
   * review editor plays instead of the original (docs/proxies.md). Shown by getJob; never sent.
   */
  proxy?: SourceProxy;
}

/** Where a proxy is being built, one per camera. */
export type ProxyStatus = 'pending' | 'ready' | 'failed' | 'unavailable';

/**
 * A camera's proxy as the Job shows it: `pending` until the engine has built it (after analysis,
 * while the job waits in mapping or ready: the job never waits on it), then `ready` with a signed
 * URL (Range supported, one hour), or `failed` / `unavailable` (this browser cannot decode the
 * source or encode a proxy) with the reason in plain words. The render always reads the originals.
 */
export interface SourceProxy {
  status: ProxyStatus;
  /** `ready`: a signed GET URL of the proxy (MP4, H.264 where the browser encodes it, no sound). */
  url?: string;
  /** `ready`: its frame size in pixels. */
  width?: number;
  height?: number;
  /** `failed` / `unavailable`: why, in plain words. */
  reason?: string;
}

/** A source's start timecode: the SMPTE label of its first frame, as the camera wrote it. */
export interface SourceTimecode {
  /** `HH:MM:SS:FF`, or `HH:MM:SS;FF` when drop-frame. */
  start: string;
  /** The rate the timecode counts at (30000/1001 for 29.97 drop-frame or not). */
  frameRate: FrameRateFraction;
  /** Drop-frame labels (29.97 and 59.94 only). */
  dropFrame: boolean;
}

/** A frame rate as the exact fraction `num/den` frames per second. */
export interface FrameRateFraction {
  num: number;
  den: number;
}

export interface Track {
  sourceId: string;
  speakers: string[];
}

export interface Turn {
  speaker: string;
  startMs: number;
  endMs: number;
}

export interface Cut {
  startMs: number;
  endMs: number;
  sourceId: string;
  /** Why this cut was made (an extra field, shown in the review editor). */
  reason?: string;
}

export interface TimeRange {
  startMs: number;
  endMs: number;
}

export interface SilenceSettings {
  mode: SilenceMode;
  minPauseSec?: number;
  keepPauseSec?: number;
  paddingSec?: number;
}

/** Silence settings with every default filled in. */
export interface ResolvedSilenceSettings {
  mode: SilenceMode;
  minPauseSec: number;
  keepPauseSec: number;
  paddingSec: number;
}

export const SILENCE_DEFAULTS = { minPauseSec: 1.5, keepPauseSec: 0.7, paddingSec: 0.25 } as const;
export const SILENCE_RANGES = {
  minPauseSec: [0.3, 10],
  keepPauseSec: [0, 3],
  paddingSec: [0, 1],
} as const;

/** The integrated loudness targets a job may ask for, LUFS: −16 (Apple Podcasts), −14 (Spotify, YouTube), −19 (quieter, more headroom). */
export const LOUDNESS_TARGETS = [-16, -14, -19] as const;
export type LoudnessTarget = (typeof LOUDNESS_TARGETS)[number];

/**
 * createJob's `audio` (additive): how the render's sound is finished. Each speaker is levelled
 * from their own speech, the mix brought to `loudness` LUFS (integrated, BS.1770-4) and held
 * under `truePeak` dBTP. `loudness: 'off'` leaves the sound as recorded (no levelling, no target,
 * no limiter).
 */
export interface AudioSettings {
  /** Target integrated loudness, LUFS, or `off`. Default −16. */
  loudness?: LoudnessTarget | 'off';
  /** True-peak ceiling, dBTP, from −9 to 0. Default −1. */
  truePeak?: number;
}

/** Audio settings with every default filled in. */
export interface ResolvedAudioSettings {
  loudness: LoudnessTarget | 'off';
  truePeak: number;
}

export const AUDIO_DEFAULTS: Readonly<ResolvedAudioSettings> = { loudness: -16, truePeak: -1 };
/** The range `audio.truePeak` may take, dBTP. */
export const TRUE_PEAK_RANGE = [-9, 0] as const;

/**
 * A person's gain on one source's sound (additive, updateCuts `audio.gains`): dB added to what
 * the levelling sets, before the master gain and the limiter (so the render still meets its
 * loudness target), or `mute` (the source leaves the mix). Also applied with `loudness: 'off'`.
 */
export type SourceGain = number | 'mute';
/** The range a {@link SourceGain} in dB may take. */
export const SOURCE_GAIN_RANGE = [-12, 12] as const;

/** updateCuts' `audio` (additive): the gains in force, per source id; a source left out is at 0 dB. */
export interface AudioEdit {
  gains: Record<string, SourceGain>;
}

/**
 * The Job's `audio` (additive): the render's sound settings as they stand, createJob's
 * loudness target and ceiling (defaults filled in) and the gains set in the review editor.
 */
export interface JobAudio {
  loudness: LoudnessTarget | 'off';
  truePeak: number;
  /** Per source id: a person's gain (see {@link SourceGain}); empty when none is set. */
  gains: Record<string, SourceGain>;
  /**
   * Additive: how loud each speaker-detection source was recorded and the levelling planned for
   * its speakers, measured by the analysis before any render (see {@link RecordedLevels});
   * absent until speaker detection has measured it (and on jobs analysed before it did).
   */
  levels?: RecordedLevels;
}

/**
 * What the analysis measured of the sources speaker detection decoded (the mics, else the first
 * camera; 16 kHz mono, on the reference timeline, the whole recording): per source its integrated
 * loudness and, per speaker it carries, their speech loudness and the static levelling gain the
 * render will plan from it (each speaker brought to the mean of all speakers' speech). BS.1770-4,
 * as the render's `output_format.levels` counts it: in a stereo mix a mono source counts in both
 * channels. LUFS and dB; null where nothing could be measured.
 */
export interface RecordedLevels {
  /** The speech loudness every speaker is levelled to (the mean of their speech), LUFS; null when none could be measured. */
  speech_target_lufs: number | null;
  sources: RecordedSourceLevels[];
}

/** One source's recorded levels (see {@link RecordedLevels}). */
export interface RecordedSourceLevels {
  source_id: string;
  /** The whole source's integrated loudness, LUFS. */
  integrated_lufs: number | null;
  /** The speakers on this source: its mic's speaker (per mic), every speaker (a single mix), none (room sound). */
  speakers: Array<{
    speaker: string;
    /** Their speech on this source (their turns, gated as BS.1770 does), LUFS; null when they spoke too little. */
    speech_lufs: number | null;
    /** The levelling gain planned for them, dB (0 when under 2 s of their speech could be measured). */
    gain_db: number;
    /** Seconds of their speech the gain rests on. */
    speech_sec: number;
  }>;
}

export type CameraKind = 'closeup' | 'twoshot' | 'wide' | 'multi' | 'unknown';
export type CameraConfidence = 'high' | 'low' | 'none';

export interface CameraMapCamera {
  sourceId: string;
  kind: CameraKind;
  confidence: CameraConfidence;
  speakers: string[];
  positions?: { left?: string; middle?: string; right?: string };
  reason?: string;
  z?: Record<string, number>;
  lagErrorS?: Record<string, number>;
  /**
   * What the answer rests on (a field this implementation adds): `faces` (BlazeFace found
   * people and their mouths were matched to the turns) or `motion` (motion in the picture's
   * thirds; drawn figures, or no face found).
   */
  evidence?: 'faces' | 'motion';
  /** With `evidence: 'faces'`: how many people the camera shows (additive). */
  faces?: number;
  /** How much of the pictures the answer rests on (additive, issue 51); absent when the camera had no samples. */
  support?: CameraSupport;
}

/**
 * How much evidence a camera's answer rests on (a field this implementation adds): the pictures
 * are sampled in short runs of frames, so an hour may give each speaker only some of their turns.
 */
export interface CameraSupport {
  /** Runs of consecutive frames sampled from the camera. */
  runs: number;
  /** Motion samples (frame pairs) scored. */
  samples: number;
  /** Per judged speaker: how many of their turns the samples fall in (each a separate chance to see them talk). */
  turns: Record<string, number>;
  /** Per judged speaker: seconds of their speech the samples cover. */
  seconds: Record<string, number>;
}

export interface CameraMap {
  version: 1;
  computedAt?: string;
  speakers: string[];
  unassignedSpeakers: string[];
  droppedSpeakers: string[];
  cameras: CameraMapCamera[];
}

/**
 * What the render made: container, codecs and who encoded the audio (AAC in every browser:
 * WebCodecs where it has an AAC encoder, else the bundled WebAssembly encoder `aac-wasm`).
 * A field this implementation adds to the Job.
 */
export interface OutputFormat {
  container: 'mp4' | 'webm';
  video_codec: 'h264' | 'vp9' | 'av1';
  audio_codec: 'aac' | 'opus' | null;
  audio_encoder: 'webcodecs' | 'aac-wasm' | null;
  /** A note on the output where it is not what was asked for; null (every browser now renders AAC). */
  note: string | null;
  /**
   * Additive: how loud the render's audio is; null when it has no audio, absent on renders
   * made before it was measured.
   */
  loudness?: OutputLoudness | null;
  /**
   * Additive: what the mastering did (createJob's `audio`): each audio source's loudness before
   * and after levelling, the master gain and the limiter; null when the sound was left as
   * recorded (`loudness: 'off'`), absent on renders made before.
   */
  levels?: OutputLevels | null;
}

/**
 * What the render's mastering did. Each source is measured over the kept timeline as it enters
 * the mix (a mono mic in a stereo render counts in both channels); "after" is as it sits in the
 * render (levelling, mix weight and master gain), before the limiter. Loudness in LUFS, gains in dB.
 */
export interface OutputLevels {
  /** The integrated loudness asked for, LUFS. */
  target_lufs: number;
  /** The true-peak ceiling asked for, dBTP. */
  true_peak_ceiling_dbtp: number;
  /** The gain that brought the levelled mix to the target, dB. */
  master_gain_db: number;
  /** The most the true-peak limiter turned the sound down, dB (0: it never acted). */
  limiter_max_reduction_db: number;
  sources: OutputSourceLevels[];
}

/** One audio source's levels (see {@link OutputLevels}). */
export interface OutputSourceLevels {
  source_id: string;
  /** Additive: the person's gain on this source (the Job's `audio.gains`) the render applied, dB; null when muted. */
  source_gain_db?: number | null;
  integrated_lufs_before: number | null;
  integrated_lufs_after: number | null;
  /** The speakers levelled on this source: its mic's speaker, or every speaker of a single mix. */
  speakers: Array<{
    speaker: string;
    /** Their speech on this source (their turns, gated as BS.1770 does), LUFS; null when they spoke too little to measure. */
    speech_lufs_before: number | null;
    speech_lufs_after: number | null;
    /** The levelling gain set for them, dB; the ride moves it within `ride_db` while they speak. */
    gain_db: number;
    ride_db: [number, number];
    /** Seconds of their speech the gain rests on. */
    speech_sec: number;
  }>;
}

/**
 * The loudness of a render's audio per ITU-R BS.1770-4 / EBU R128, measured on the mix as it
 * went to the encoder (a lossy encoder may move the true peak by a few tenths of a dB). A value
 * is null where silence leaves nothing to measure. Podcast hosts ask for about −16 LUFS
 * integrated (Apple) or −14 (Spotify, YouTube) and at most −1 dBTP.
 */
export interface OutputLoudness {
  /** Integrated (programme) loudness, LUFS: gated at −70 LUFS and 10 LU below the ungated level. */
  integrated_lufs: number | null;
  /** Loudness range, LU (EBU Tech 3342): how much the level varies, 10th to 95th percentile of 3 s loudness. */
  loudness_range_lu: number | null;
  /** Highest short-term (3 s) loudness, LUFS. */
  max_short_term_lufs: number | null;
  /** True peak (4× oversampled), dBTP. */
  true_peak_dbtp: number | null;
  /** Highest sample, dBFS. */
  sample_peak_dbfs: number | null;
}

/**
 * The kinds of {@link JobWarning} this implementation reports (additive). Clients must accept
 * codes not listed here.
 */
export const WARNING_CODES = [
  /** The face model could not be loaded: cameras are mapped by motion only. */
  'face_model_unavailable',
  /** The host app's active-speaker model could not be loaded: faces are matched to voices by mouth motion. */
  'active_speaker_model_unavailable',
  /** A camera's pictures could not be read: the camera map has no answer for it. */
  'camera_not_sampled',
  /** A source's audio could not be read by the browser's decoder and was read by ffmpeg.wasm instead. */
  'decoder_fallback',
  /** A webhook could not be signed, so it was not sent. */
  'webhook_not_signed',
  /** The browser did not say how much it may still store, so createJob could not check that the files fit. */
  'storage_estimate_unavailable',
  /** A source's uploaded file is empty or not a video or audio file: syncing will fail at once until it is uploaded again. */
  'source_not_media',
  /** A camera the mapping gives no speaker while the job has speakers: the edit never shows it until someone says who is on it. */
  'camera_unused',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

/**
 * Something that went wrong without failing the job (additive): a fallback was taken, a check
 * was skipped, or a notification was not sent. One per `code` and `sourceId`.
 */
export interface JobWarning {
  /** One of {@link WARNING_CODES}, or a newer code. */
  code: string;
  /** What happened and what it means for the edit, in plain words. */
  message: string;
  /** The source it concerns, when it concerns one. */
  sourceId?: string;
  /** The stage it happened in, when it happened in one. */
  stage?: string;
  /** When it was first seen (ISO 8601). */
  at: string;
}

/** The full job, snake_case as the spec says. */
export interface Job {
  id: string;
  title: string | null;
  status: JobStatus;
  sources: JobSource[];
  tracks: Track[];
  turns: Turn[];
  cuts: Cut[];
  removed_ranges: TimeRange[] | null;
  camera_map: CameraMap | null;
  /** Names people gave the detected speakers (additive; see nameSpeakers): label → name. */
  speaker_names: Record<string, string>;
  output_url: string | null;
  /** What the render made; null until a render finished. */
  output_format: OutputFormat | null;
  error_message: string | null;
  failed_at_status: string | null;
  review: boolean;
  auto_map: AutoMapMode;
  callback_url: string | null;
  /** Additive: what went wrong without failing the job (see {@link JobWarning}); empty when nothing did. */
  warnings: JobWarning[];
  /** Additive: the render's sound settings and the gains set per source (see {@link JobAudio}). */
  audio: JobAudio;
  created_at: string;
  updated_at: string;
}

export interface JobListItem {
  id: string;
  title: string | null;
  status: JobStatus;
  created_at: string;
  updated_at: string;
}

export interface NextAction {
  type: NextActionType;
  url: string | null;
  message: string;
}

export interface JobSummary {
  id: string;
  status: JobStatus;
  progress: number | null;
  /**
   * Additive: the fraction done (0..1) of the stage running now — syncing, diarizing, mapping
   * while the cameras are worked out, rendering (the same as `progress`) — or null when no stage
   * runs or it has not reported yet.
   */
  stageProgress: number | null;
  nextAction: NextAction;
  outputUrl: string | null;
  error: string | null;
  failedAtStatus: string | null;
  /** Additive: the job's warnings, as in `Job.warnings`. */
  warnings: JobWarning[];
  updatedAt: string;
}

export interface GetJobResponse {
  job: Job;
  sourceUrls: Record<string, string>;
  audioUrl: string | null;
}

export interface PutUpload {
  method: 'put';
  url: string;
}

export interface MultipartUpload {
  method: 'multipart';
  uploadId: string;
  key: string;
  partSize: number;
  partCount: number;
  urls: string[];
}

export type UploadInfo = PutUpload | MultipartUpload;

export interface CreateJobRequest {
  sources: SourceInput[];
  title?: string;
  callbackUrl?: string;
  review?: boolean;
  autoMap?: AutoMapMode;
  silence?: SilenceSettings;
  /** Additive: loudness target and true-peak ceiling of the render (see {@link AudioSettings}). */
  audio?: AudioSettings;
}

export interface CreateJobResponse {
  jobId: string;
  uploads: Record<string, UploadInfo>;
  audioUploads: Record<string, PutUpload>;
}

export interface ListJobsResponse {
  jobs: JobListItem[];
}

export interface OkResponse {
  ok: true;
}

export interface RequestUploadPartUrlsRequest {
  uploadId: string;
  partNumbers: number[];
}

export interface RequestUploadPartUrlsResponse {
  urls: Record<string, string>;
}

export interface MultipartKeyRequest {
  key: string;
  uploadId: string;
}

export interface StartProcessingRequest {
  diarizeSourceIds?: string[];
}

export interface StartProcessingResponse {
  jobId: string;
  status: 'syncing' | JobStatus;
  alreadyProcessed?: boolean;
}

export interface SubmitSpeakerMappingRequest {
  tracks: Track[];
  cuts?: Cut[];
  removedRanges?: TimeRange[];
}

export interface SubmitSpeakerMappingResponse {
  jobId: string;
  cuts: Cut[];
  success: true;
}

/** nameSpeakers (additive): PUT /jobs/{id}/speakers. */
export interface NameSpeakersRequest {
  /** Every name in force: speaker label → name; a speaker left out (or named "") has no name. */
  names: Record<string, string>;
}

export interface NameSpeakersResponse {
  jobId: string;
  speakerNames: Record<string, string>;
  success: true;
}

export interface RecutRequest {
  presetId: PresetId;
  silence?: SilenceSettings;
}

export interface RecutResponse {
  jobId: string;
  presetId: PresetId;
  cuts: Cut[];
  removedRanges: TimeRange[];
  savedMs: number;
  silence: ResolvedSilenceSettings;
  success: true;
}

export interface UpdateCutsRequest {
  cuts?: Cut[];
  removedRanges?: TimeRange[];
  /** Additive: the gains in force per source (replaces those set before; see {@link AudioEdit}). */
  audio?: AudioEdit;
}

export interface JobStatusResponse {
  jobId: string;
  status: JobStatus;
}

export interface RetryRequest {
  diarizeSourceIds?: string[];
}

export const ERROR_CODES = [
  'TRACKS_ON_CREATE',
  'FILE_TOO_LARGE',
  'INVALID_FILE_SIZE',
  'FILE_SIZE_MISMATCH',
  'UNKNOWN_SOURCE',
  'EMPTY_MAPPING',
  'CUTS_REQUIRED',
  'NOT_ENOUGH_VIDEOS',
  'INVALID_IDEMPOTENCY_KEY',
  'QUOTA_EXCEEDED',
  'INVALID_STATUS',
  'SOURCES_PENDING',
  'NO_CUTS',
  'IDEMPOTENCY_IN_PROGRESS',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_MISMATCH',
  /** Additive: the declared files do not fit in what this browser may still store (507). */
  'INSUFFICIENT_STORAGE',
  /** Additive: a source used in place is held by no open page, or changed on disk (409). */
  'LOCAL_FILE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The optional fields of the Error body (`Omit` cannot be used on ErrorBody: it has an index signature). */
export interface ErrorExtras {
  code?: ErrorCode;
  maxBytes?: number;
  sourceId?: string;
  sourceIndex?: number;
  status?: string;
  pendingSourceIds?: string[];
  /** INSUFFICIENT_STORAGE: bytes the job needs, and bytes the origin may still store. */
  neededBytes?: number;
  availableBytes?: number;
}

/** The Error body of every error response. Extra fields may appear. */
export interface ErrorBody extends ErrorExtras {
  error: string;
  [extra: string]: unknown;
}

/** Webhook bodies, per the spec's event table. */
export type EventPayload =
  | { jobId: string; status: 'mapping'; reviewUrl: string; speakers: string[]; cameraMap?: CameraMap }
  | { jobId: string; status: 'ready'; reviewUrl: string }
  | { jobId: string; status: 'complete'; outputUrl: string }
  | { jobId: string; status: 'approved'; outputUrl: string }
  | { jobId: string; status: 'failed'; error: string; failedAtStatus: string };

/** Limits of the spec. */
export const LIMITS = {
  maxSources: 12,
  minVideoSources: 2,
  titleMaxLength: 200,
  /** A source's `label` (createJob); longer is 400. */
  labelMaxLength: 200,
  /**
   * A cut's `reason` (updateCuts, submitSpeakerMapping); longer is 400. Generous on purpose: the
   * editor sends back the reasons the planner wrote, which can list a dozen speakers and a
   * 200-character label (under 1,000 characters).
   */
  reasonMaxLength: 2000,
  maxFileSize: 107_374_182_400,
  maxPutSize: 5 * 1024 ** 3,
  multipartThreshold: 100 * 1024 ** 2,
  putUrlValidityMs: 60 * 60 * 1000,
  partUrlValidityMs: 2 * 60 * 60 * 1000,
  maxPartNumbersPerRequest: 16,
  idempotencyKeyTtlMs: 24 * 60 * 60 * 1000,
  listSize: 50,
  webhookAttempts: 3,
  webhookAttemptTimeoutMs: 10_000,
  reviewLinkValidityMs: 72 * 60 * 60 * 1000,
  outputUrlValidityMs: 7 * 24 * 60 * 60 * 1000,
  sourceUrlValidityMs: 60 * 60 * 1000,
} as const;
