/**
 * The syncing stage: probe every source (duration, codecs), decode its audio in the media
 * worker, and place every source on the reference timeline with `alignSources` in the analysis
 * worker. Sources are decoded one at a time, at the sync analysis rate, so memory holds one
 * source's audio being decoded plus the 8 kHz signals aligned.
 *
 * @module
 */
import type { SyncSignal } from '../../analysis/sync.ts';
import { openFileBlob } from '../../store/files.ts';
import type { SyncingOutput } from '../reporter.ts';
import { mediaFailure, sourceName, withLabels, type StageRunner } from './context.ts';
import { transfer } from 'comlink';

/** The rate sources are decoded at for sync (alignSources correlates at 8 kHz). */
export const SYNC_SAMPLE_RATE = 8000;

/** Runs the syncing stage of one job. */
export const runSyncing: StageRunner<'syncing'> = async ({ db, job, workers, signal, onProgress }) => {
  const durationsMs: Record<string, number> = {};
  const signals: SyncSignal[] = [];
  const media = workers.media();
  for (const [index, source] of job.sources.entries()) {
    if (source.fileId === null)
      return {
        ok: false,
        failure: { message: `source ${sourceName(job, source)} has no uploaded file`, permanent: true },
      };
    try {
      const blob = await openFileBlob(db, source.fileId);
      const probe = await media.probe(blob, { label: source.label, signal });
      durationsMs[source.id] = Math.round(probe.durationMs);
      if (probe.audio === null)
        return {
          ok: false,
          failure: {
            message: `source ${sourceName(job, source)} has no audio track, so it cannot be synced`,
            permanent: true,
          },
        };
      const audio = await media.decodeAudio(blob, { label: source.label, sampleRate: SYNC_SAMPLE_RATE, signal });
      signals.push({ id: source.id, samples: audio.samples, sampleRate: audio.sampleRate });
    } catch (error) {
      if (signal.aborted) throw error;
      return { ok: false, failure: mediaFailure(job, source, error) };
    }
    onProgress((index + 1) / (job.sources.length + 1));
  }
  signal.throwIfAborted();
  const aligned = await workers.analysis().align(
    transfer(
      signals,
      signals.map((s) => s.samples.buffer as ArrayBuffer),
    ),
  );
  signal.throwIfAborted();
  if (!aligned.ok)
    return { ok: false, failure: { message: withLabels(job, aligned.failures.map((f) => f.message).join('; ')) } };
  const output: SyncingOutput = { durationsMs, offsetsMs: {}, driftPpm: {} };
  for (const a of aligned.alignments) {
    output.offsetsMs![a.id] = a.offsetMs;
    output.driftPpm![a.id] = a.driftPpm;
  }
  return { ok: true, output };
};
