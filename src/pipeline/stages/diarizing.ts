/**
 * The diarizing stage: decode the diarize sources (by default the audio sources, else the
 * first source) at 16 kHz in the media worker, and hand them with each source's offset and
 * drift to the analysis worker, which puts them on the reference timeline, mixes them, writes
 * the mix as WAV (kept as the job's audio, `audioUrl`) and runs VAD + speaker detection
 * (per-mic with several diarize sources, single-mix clustering with one). The page only
 * routes: the decoded buffers are transferred, never copied or looped over here.
 *
 * @module
 */
import { transfer } from 'comlink';
import type { RecordedLevelsResult } from '../../analysis/audio/recorded-levels.ts';
import type { RecordedLevels } from '../../contract/types.ts';
import type { FaceWitness } from '../../analysis/faces/face-evidence.ts';
import { facesToReference, steadyFaces } from '../../analysis/faces/face-tracks.ts';
import type { JobRecord, SourceRecord } from '../../store/db.ts';
import { removeScratch, scratchName } from '../../media/scratch.ts';
import { openFileBlob } from '../../store/files.ts';
import type { StageFailure } from '../../jobs/reporter.ts';
import { mediaFailure, sourceName, twoAtATime, type StageRun, type StageRunner } from './context.ts';
import type { DecodedSource, DiarizeSourcesOutcome, HostModelSlot, HostModelUse } from '../../speakers/protocol.ts';

/** The rate VAD and speaker detection run at. */
export const DIARIZE_SAMPLE_RATE = 16000;

/** The sources used for speaker detection (spec: `diarizeSourceIds`, default the audio sources, else the first). */
export function diarizeSources(job: JobRecord): SourceRecord[] {
  if (job.diarizeSourceIds && job.diarizeSourceIds.length > 0) {
    const chosen = job.sources.filter((s) => job.diarizeSourceIds!.includes(s.id));
    if (chosen.length > 0) return chosen;
  }
  const audio = job.sources.filter((s) => s.kind === 'audio');
  if (audio.length > 0) return audio;
  return job.sources.slice(0, 1);
}

/**
 * Stage metrics of the optional model slots: `segmentationModel` / `embeddingModel` are
 * `used`, `not-supplied` or `skipped-per-mic`; a used model adds its load and run time, ms.
 */
export function hostModelMetrics(uses: Record<HostModelSlot, HostModelUse>): Record<string, number | string> {
  const metrics: Record<string, number | string> = {};
  for (const slot of ['segmentation', 'embedding'] as const) {
    const use = uses[slot];
    metrics[`${slot}Model`] = use.state;
    if (use.state === 'used') {
      metrics[`${slot}LoadMs`] = Math.round(use.loadMs);
      metrics[`${slot}Ms`] = Math.round(use.runMs);
    }
  }
  return metrics;
}

/**
 * The Job's view of the recorded levels (snake_case, as the Job is), the sources in `sources`'
 * order. Counted as the render's `output_format.levels` counts them: its mix is stereo unless
 * every source it mixes (the audio sources, else the cameras) was probed mono, and in a stereo
 * mix a mono source counts in both channels (+3.01 dB); the decoded channels are mono downmixes.
 */
export function recordedLevelsOf(
  job: { sources: readonly Pick<SourceRecord, 'kind' | 'channels'>[] },
  sources: readonly Pick<SourceRecord, 'id'>[],
  levels: RecordedLevelsResult,
): RecordedLevels {
  const audio = job.sources.filter((s) => s.kind === 'audio');
  const mixed = audio.length > 0 ? audio : job.sources.filter((s) => s.kind === 'video');
  const stereo = mixed.some((s) => (s.channels ?? 2) > 1);
  const shift = stereo ? 10 * Math.log10(2) : 0;
  const at = (lufs: number | null): number | null => (lufs === null ? null : Math.round((lufs + shift) * 100) / 100);
  return {
    speech_target_lufs: at(levels.speechTargetLufs),
    sources: levels.sources.map((l, i) => ({
      source_id: sources[i]!.id,
      integrated_lufs: at(l.integratedLufs),
      speakers: l.speakers.map((k) => ({
        speaker: k.speaker,
        speech_lufs: at(k.speechLufs),
        gain_db: k.gainDb,
        speech_sec: k.speechSec,
      })),
    })),
  };
}

/** The length of the reference timeline, ms: it ends where the last source ends. */
function referenceLengthMs(job: JobRecord): number {
  return Math.max(...job.sources.map((s) => (s.offsetMs ?? 0) + (s.durationMs ?? 0) / (1 + (s.driftPpm ?? 0) * 1e-6)));
}

/**
 * A scratch folder for a per-mic job's decoded sources, channels and mix (an hour of three mics
 * is 0.7 GB: on disk, not in memory), where the origin's storage has room for twice that (the
 * sources and the channels that replace them); null for a single mix, or without room.
 */
async function scratchFolder(job: JobRecord, sources: SourceRecord[]): Promise<string | null> {
  if (sources.length < 2) return null;
  const bytes = 4 * sources.length * Math.ceil((referenceLengthMs(job) * DIARIZE_SAMPLE_RATE) / 1000);
  try {
    const { quota, usage } = await navigator.storage.estimate();
    if (quota !== undefined && usage !== undefined && quota - usage < 2.4 * bytes) return null;
  } catch {
    return null;
  }
  return scratchName();
}

/**
 * Decodes each diarize source at {@link DIARIZE_SAMPLE_RATE} in the media worker, two at a
 * time, into files of `folder` when given, or says which failed.
 */
async function decodeDiarizeSources(
  { db, job, workers, signal, onProgress, alive }: StageRun,
  sources: SourceRecord[],
  folder: string | null,
): Promise<{ ok: true; decoded: DecodedSource[] } | { ok: false; failure: StageFailure }> {
  const media = workers.media();
  const decoded: DecodedSource[] = [];
  // The failure of the first source (in order) that failed: the same answer as one at a time.
  const failures: Array<StageFailure | undefined> = [];
  let done = 0;
  const decodeOne = async (index: number): Promise<void> => {
    const source = sources[index]!;
    if (source.fileId === null) {
      failures[index] = { message: `source ${sourceName(job, source)} has no uploaded file`, permanent: true };
      return;
    }
    try {
      const blob = await openFileBlob(db, source.fileId);
      const audio = await media.decodeAudio(blob, {
        label: source.label,
        sampleRate: DIARIZE_SAMPLE_RATE,
        signal,
        ...(folder ? { toFile: { folder, name: `source-${index}.f32` } } : {}),
        // The worker's per-second decode progress: a sign of life for the engine's stall watchdog.
        ...(alive ? { onProgress: alive } : {}),
      });
      decoded[index] = {
        samples: audio.samples,
        ...(audio.file ? { file: audio.file } : {}),
        sampleRate: audio.sampleRate,
        offsetMs: source.offsetMs ?? 0,
        driftPpm: source.driftPpm ?? 0,
      };
      // Decoding each source is a share of the stage; speaker detection itself is the last share.
      onProgress(++done / (sources.length + 1));
    } catch (error) {
      if (signal.aborted) throw error;
      failures[index] = mediaFailure(job, source, error);
    }
  };
  await twoAtATime(sources.length, decodeOne, () => failures.length > 0);
  const failure = failures.find((f) => f !== undefined);
  return failure === undefined ? { ok: true, decoded } : { ok: false, failure };
}

/** Hands the decoded sources (transferred) to the analysis worker; aborts it when `signal` does. */
async function requestDiarize(
  { job, workers, assets, signal }: StageRun,
  decoded: DecodedSource[],
  faces: FaceWitness[],
  folder: string | null,
): Promise<DiarizeSourcesOutcome> {
  const requestId = `diarize_${job.id}_${Date.now()}`;
  const analysis = workers.analysis();
  const onAbort = (): void => void analysis.abort(requestId);
  signal.addEventListener('abort', onAbort, { once: true });
  let response;
  try {
    response = await analysis.diarizeSources(
      transfer(
        {
          sources: decoded,
          lengthMs: referenceLengthMs(job),
          sampleRate: DIARIZE_SAMPLE_RATE,
          modelUrl: assets.vadModelUrl,
          ortWasmPath: assets.ortWasmPath,
          ...(assets.assetCache ? { assetCache: assets.assetCache } : {}),
          ...(assets.segmentationModelUrl ? { segmentationModelUrl: assets.segmentationModelUrl } : {}),
          ...(assets.embeddingModelUrl ? { embeddingModelUrl: assets.embeddingModelUrl } : {}),
          ...(faces.length > 0 ? { faces } : {}),
          ...(folder ? { scratch: folder } : {}),
        },
        decoded.map((d) => d.samples.buffer as ArrayBuffer),
      ),
      requestId,
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  signal.throwIfAborted();
  return response;
}

/**
 * Single mix: the steady faces of every camera, on the reference timeline, from the camera
 * sampling the syncing stage started (the mapping stage reuses it). A camera that cannot be
 * sampled gives none; faces only ever add evidence.
 */
async function steadyFaceWitnesses({ db, job, workers, signal }: StageRun): Promise<FaceWitness[]> {
  const out: FaceWitness[] = [];
  for (const source of job.sources.filter((s) => s.kind === 'video')) {
    const fileId = source.fileId;
    if (fileId === null) continue;
    try {
      const motion = await workers.cameraMotion(job.id, source.id, () => openFileBlob(db, fileId));
      if (!motion.faces || !steadyFaces(motion.faces)) continue;
      const offsetMs = source.offsetMs ?? 0;
      const driftPpm = source.driftPpm ?? 0;
      const faces = facesToReference(motion.faces, offsetMs, driftPpm);
      for (const track of faces.tracks) out.push({ cameraId: source.id, track });
    } catch (error) {
      if (signal.aborted) throw error;
    }
  }
  return out;
}

/** Runs the diarizing stage of one job. */
export const runDiarizing: StageRunner<'diarizing'> = async (run) => {
  const { job } = run;
  const startedAt = performance.now();
  const sources = diarizeSources(job);
  const folder = await scratchFolder(job, sources);
  let response: DiarizeSourcesOutcome;
  let decodedAt: number;
  let decoded: DecodedSource[];
  let faces: FaceWitness[];
  try {
    const decoding = await decodeDiarizeSources(run, sources, folder);
    if (!decoding.ok) {
      if (folder) await removeScratch(folder);
      return decoding;
    }
    decoded = decoding.decoded;
    decodedAt = performance.now();
    faces = sources.length === 1 && run.assets.faceModelUrl ? await steadyFaceWitnesses(run) : [];
    response = await requestDiarize(run, decoded, faces, folder);
  } catch (error) {
    // Cancelled or crashed: what the media worker wrote goes (the analysis worker removes its own).
    if (folder) await removeScratch(folder);
    throw error;
  }
  if (!response.ok) {
    // A model the host supplied and that cannot be used: say which, never fall back silently.
    const { message, permanent } = response.modelFailure;
    return { ok: false, failure: { message: `speaker detection: ${message}`, permanent } };
  }
  const names = sources.map((s) => sourceName(job, s)).join(', ');
  // The mix's WAV may sit in the analysis worker's scratch folder: removed once stored, or now.
  const scratch = response.scratch;
  const dropScratch = async (): Promise<void> => {
    if (scratch) await run.workers.analysis().dropScratch(scratch);
  };
  if (response.result.kind === 'no-speech') {
    await dropScratch();
    return {
      ok: false,
      failure: {
        message: `no speech found in the speaker-detection audio (${names}): ${response.result.message}. Retry with other diarizeSourceIds: sources with clean audio of every speaker.`,
      },
    };
  }
  return {
    ok: true,
    output: {
      turns: response.result.turns,
      speakers: response.result.speakers,
      audio: response.audio,
      mix: response.mix,
      levels: recordedLevelsOf(job, sources, response.levels),
    },
    metrics: {
      // Decoding here plus putting on the reference timeline, mixing and WAV writing in the worker.
      decodeMs: Math.round(decodedAt - startedAt + response.prepareMs),
      vadLoadMs: Math.round(response.vadLoadMs),
      vadMs: Math.round(response.vadMs),
      diarizeMs: Math.round(response.elapsedMs - response.vadMs),
      vadProvider: response.vadProvider,
      vadLanes: response.vadLanes,
      vadSkipped: Math.round(response.vadSkipped * 100) / 100,
      residualThreads: response.residualThreads,
      ...(response.residualShare ? { residualShare: response.residualShare } : {}),
      channels: decoded.length,
      // Where the long signals were kept: a scratch folder of the private file system, or memory.
      signals: scratch ? 'disk' : 'memory',
      ...(sources.length === 1 ? { faceCameras: new Set(faces.map((f) => f.cameraId)).size } : {}),
      ...(response.faceSplit ? { faceSplit: `${response.faceSplit.from}→${response.faceSplit.to}` } : {}),
      ...hostModelMetrics(response.hostModels),
    },
    ...(scratch ? { afterReport: dropScratch } : {}),
  };
};
