/**
 * What every stage of the engine runner gets, and what it gives back.
 *
 * @module
 */
import type { Remote } from 'comlink';
import type { MediaClient } from '../../media/client.ts';
import type { RenderClient } from '../../render/client.ts';
import type { CameraMotion, VisionAssets, VisionWorkerApi } from '../../vision/protocol.ts';
import { MediaAbortError, NoAudioTrackError, UnreadableMediaError } from '../../media/errors.ts';
import type { Database, JobRecord, SourceRecord } from '../../store/db.ts';
import { LocalFileUnavailableError } from '../../store/local-files.ts';
import type { EngineStage } from '../../contract/engine.ts';
import type { NewWarning } from '../../contract/warnings.ts';
import type { StageFailure, StageOutputs } from '../../jobs/reporter.ts';
import type { AnalysisWorkerApi } from '../../speakers/protocol.ts';

/** The workers a stage may use; created on first use and kept for the next stage. */
export interface StageWorkers {
  media(): MediaClient;
  analysis(): Remote<AnalysisWorkerApi>;
  vision(): Remote<VisionWorkerApi>;
  render(): RenderClient;
  /**
   * A camera's motion features, computed once per job and source in the vision worker: the
   * syncing stage starts them, so frames are sampled while the audio is decoded and aligned
   * (both cores busy), and the mapping stage awaits them. A job's cameras are sampled one after
   * another (two at a time once {@link hurryCameraMotion} asks); a failed one is forgotten, so
   * the next call samples it again.
   */
  cameraMotion(jobId: string, sourceId: string, blob: () => Promise<Blob>): Promise<CameraMotion>;
  /**
   * Lets a job's cameras not yet started run on a second vision worker beside the first: the
   * mapping stage waits on them, and the analysis has let the other core go. On one core,
   * nothing changes. Says how many vision workers the job's cameras now use.
   */
  hurryCameraMotion(jobId: string): number;
  /** Stops and forgets a job's camera motion work (the job was deleted, failed, or is mapped). */
  dropCameraMotion(jobId: string): void;
}

/**
 * Where runtime assets are served (absolute URLs, the app's own origin). The vision worker's
 * models, onnxruntime-web's wasm and the asset cache are `VisionAssets` (src/vision/protocol.ts),
 * whose fields hosts see here unchanged: the engine runner resolves and hands them on without
 * naming them, so a new host model of the camera map is not added here.
 */
export interface StageAssets extends VisionAssets {
  /** The Silero VAD model, e.g. `https://host/models/silero_vad_v6.onnx`. */
  vadModelUrl: string;
  /**
   * Optional, opted in by the host app: the folder holding the ffmpeg core (`ffmpeg-core/`, and
   * `ffmpeg-core-mt/` when installed), e.g. `https://host/wasm/`. GPL-2.0-or-later. It reads files
   * the browser cannot and encodes H.264 where it has no H.264 encoder (the render's AAC never
   * needs it). Unset: the core is never fetched.
   */
  ffmpegWasmBase?: string;
  /**
   * Optional, supplied by the host app: pyannote segmentation-3.0 as ONNX, for overlapped
   * speech in single-mix speaker detection. A model that cannot be used fails the stage.
   */
  segmentationModelUrl?: string;
  /**
   * Optional, supplied by the host app: a speaker-embedding ONNX model (WeSpeaker/3D-Speaker
   * convention, fbank `[batch, frames, 80]` → `[batch, dim]`) for speaker similarity in
   * single-mix speaker detection. A model that cannot be used fails the stage.
   */
  embeddingModelUrl?: string;
}

/** The input of a stage run. */
export interface StageRun {
  db: Database;
  /** The job as it was when the stage started. */
  job: JobRecord;
  workers: StageWorkers;
  assets: StageAssets;
  /** Aborted when the job is deleted or the engine stops. */
  signal: AbortSignal;
  /** Progress 0..1 of this stage (the summary's `stageProgress`; `progress` too while rendering). */
  onProgress: (fraction: number) => void;
  /**
   * A sign of life without a figure (e.g. a worker call's own progress): keeps the engine's stall
   * watchdog from stopping a slow but live stage. Progress reports count as signs of life too.
   */
  alive?: () => void;
}

/** What a stage ends with: its output for the reporter, or how it failed. */
export type StageResult<S extends EngineStage> =
  | {
      ok: true;
      output: StageOutputs[S];
      /** Figures for logs (ms, counts). */ metrics?: Record<string, number | string>;
      /** Runs once the output is reported (stored) or the report failed: frees what it read from. */
      afterReport?: () => Promise<void>;
      /** What went wrong without failing the stage; stored on the job's `warnings` before the output. */
      warnings?: NewWarning[];
    }
  | { ok: false; failure: StageFailure; warnings?: NewWarning[] };

/** A stage implementation. */
export type StageRunner<S extends EngineStage> = (run: StageRun) => Promise<StageResult<S>>;

/** A stage was cancelled: the runner reports nothing. */
export function isAbort(error: unknown): boolean {
  return error instanceof MediaAbortError || (error instanceof Error && error.name === 'AbortError');
}

/** A source's name for messages: its label, with its id when labels repeat. */
export function sourceName(job: JobRecord, source: SourceRecord): string {
  const same = job.sources.filter((s) => s.label === source.label).length;
  return same > 1 ? `"${source.label}" (${source.id})` : `"${source.label}"`;
}

/**
 * Turns a media error about one source into the stage failure the job shows. Unreadable files
 * and sources without audio fail at once (`permanent`): retrying the same file cannot help.
 */
export function mediaFailure(job: JobRecord, source: SourceRecord, error: unknown): StageFailure {
  const name = sourceName(job, source);
  const raw = error instanceof Error ? error.message : String(error);
  // The media layer starts its messages with the label; ours names the source already.
  const detail = raw.startsWith(`${source.label}: `) ? raw.slice(source.label.length + 2) : raw;
  // Not permanent: once a page holds the file again, retryJob (or the automatic retry) reads it.
  if (error instanceof LocalFileUnavailableError) return { message: `source ${name}: ${detail}` };
  if (error instanceof UnreadableMediaError)
    return { message: `source ${name} cannot be read (damaged or unsupported file): ${detail}`, permanent: true };
  if (error instanceof NoAudioTrackError)
    return { message: `source ${name} has no audio track, so it cannot be synced: ${detail}`, permanent: true };
  return { message: `source ${name} could not be processed: ${detail}` };
}

/** Replaces source ids in a message ("source <id>", "reference <id>") with the sources' labels. */
export function withLabels(job: JobRecord, message: string): string {
  let out = message;
  for (const source of job.sources) {
    for (const word of ['source', 'reference'])
      out = out.split(`${word} ${source.id}`).join(`${word} ${sourceName(job, source)}`);
  }
  return out;
}

/**
 * Runs `work(0)`, `work(1)`, … `work(count − 1)` two at a time (the media worker's demuxing and
 * the browser's decoder threads keep both cores busy); no new one starts once `stop()` says so.
 */
export async function twoAtATime(
  count: number,
  work: (index: number) => Promise<void>,
  stop: () => boolean,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!stop() && next < count) await work(next++);
  };
  await Promise.all([lane(), lane()]);
}
