/**
 * The syncing stage: probe every source (duration, codecs), decode its audio in the media
 * worker, and place every source on the reference timeline with `alignSources` in the analysis
 * worker. Two sources are decoded at a time (the worker's demuxing and the browser's decoder
 * threads keep both cores busy), at the sync analysis rate, so memory holds two sources' audio
 * being decoded plus the 8 kHz signals aligned.
 *
 * @module
 */
import type { SyncSignal } from '../../analysis/sync.ts';
import { openFileBlob } from '../../store/files.ts';
import type { StageFailure, SyncingOutput } from '../reporter.ts';
import { mediaFailure, sourceName, withLabels, type StageRunner } from './context.ts';
import { transfer } from 'comlink';

/** The rate sources are decoded at for sync (alignSources correlates at 8 kHz). */
export const SYNC_SAMPLE_RATE = 8000;

/** Runs the syncing stage of one job. */
export const runSyncing: StageRunner<'syncing'> = async ({ db, job, workers, signal, onProgress }) => {
  const durationsMs: Record<string, number> = {};
  const media = workers.media();
  // The cameras' motion for the mapping stage, sampled in the vision worker meanwhile.
  for (const source of job.sources) {
    const fileId = source.fileId;
    if (source.kind === 'video' && fileId !== null)
      workers.cameraMotion(job.id, source.id, () => openFileBlob(db, fileId)).catch(() => undefined);
  }
  const decoded: Array<SyncSignal | undefined> = [];
  // The failure of the first source (in job order) that failed: the same answer as one at a time.
  const failures: Array<StageFailure | undefined> = [];
  let done = 0;
  /** One source: its duration and 8 kHz audio, or its failure. */
  const decodeOne = async (index: number): Promise<void> => {
    const source = job.sources[index]!;
    if (source.fileId === null) {
      failures[index] = { message: `source ${sourceName(job, source)} has no uploaded file`, permanent: true };
      return;
    }
    try {
      const blob = await openFileBlob(db, source.fileId);
      const probe = await media.probe(blob, { label: source.label, signal });
      durationsMs[source.id] = Math.round(probe.durationMs);
      if (probe.audio === null) {
        failures[index] = {
          message: `source ${sourceName(job, source)} has no audio track, so it cannot be synced`,
          permanent: true,
        };
        return;
      }
      const audio = await media.decodeAudio(blob, { label: source.label, sampleRate: SYNC_SAMPLE_RATE, signal });
      decoded[index] = { id: source.id, samples: audio.samples, sampleRate: audio.sampleRate };
    } catch (error) {
      if (signal.aborted) throw error;
      failures[index] = mediaFailure(job, source, error);
      return;
    }
    onProgress(++done / (job.sources.length + 1));
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (failures.length === 0 && next < job.sources.length) await decodeOne(next++);
  };
  await Promise.all([lane(), lane()]);
  const failure = failures.find((f) => f !== undefined);
  if (failure !== undefined) {
    workers.dropCameraMotion(job.id);
    return { ok: false, failure };
  }
  const signals = decoded.filter((s): s is SyncSignal => s !== undefined);
  signal.throwIfAborted();
  const aligned = await workers.analysis().align(
    transfer(
      signals,
      signals.map((s) => s.samples.buffer as ArrayBuffer),
    ),
  );
  signal.throwIfAborted();
  if (!aligned.ok) {
    workers.dropCameraMotion(job.id);
    return { ok: false, failure: { message: withLabels(job, aligned.failures.map((f) => f.message).join('; ')) } };
  }
  const output: SyncingOutput = { durationsMs, offsetsMs: {}, driftPpm: {} };
  for (const a of aligned.alignments) {
    output.offsetsMs![a.id] = a.offsetMs;
    output.driftPpm![a.id] = a.driftPpm;
  }
  return { ok: true, output };
};
