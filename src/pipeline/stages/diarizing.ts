/**
 * The diarizing stage: decode the diarize sources (by default the audio sources, else the
 * first source) at 16 kHz, put them on the reference timeline with each source's offset and
 * drift, and run VAD + speaker detection in the analysis worker (per-mic with several diarize
 * sources, single-mix clustering with one). The mix is kept as the job's audio (`audioUrl`).
 *
 * @module
 */
import { transfer } from 'comlink';
import { mixDown } from '../../analysis/signal-mix.ts';
import { toSourceTime } from '../../analysis/sync.ts';
import { monoWavBlob } from '../../render/wav.ts';
import type { JobRecord, SourceRecord } from '../../store/db.ts';
import { openFileBlob } from '../../store/files.ts';
import { mediaFailure, sourceName, type StageRunner } from './context.ts';
import type { HostModelSlot, HostModelUse } from './protocol.ts';

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
 * Resamples a source's audio onto the reference timeline (sample 0 = reference time 0) with
 * its offset and drift; reference times the source did not record stay silent.
 */
export function toReferenceTimeline(
  samples: Float32Array,
  rate: number,
  offsetMs: number,
  driftPpm: number,
  lengthMs: number,
): Float32Array {
  const out = new Float32Array(Math.ceil((lengthMs * rate) / 1000));
  const mapping = { offsetMs, driftPpm };
  for (let i = 0; i < out.length; i++) {
    const s = (toSourceTime((i * 1000) / rate, mapping) * rate) / 1000;
    const k = Math.floor(s);
    if (k < 0 || k + 1 >= samples.length) continue;
    const f = s - k;
    out[i] = samples[k]! * (1 - f) + samples[k + 1]! * f;
  }
  return out;
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

/** Runs the diarizing stage of one job. */
export const runDiarizing: StageRunner<'diarizing'> = async ({ db, job, workers, assets, signal }) => {
  const startedAt = performance.now();
  const sources = diarizeSources(job);
  const media = workers.media();
  // The reference timeline ends where the last source ends.
  const lengthMs = Math.max(
    ...job.sources.map((s) => (s.offsetMs ?? 0) + (s.durationMs ?? 0) / (1 + (s.driftPpm ?? 0) * 1e-6)),
  );
  const channels: Float32Array[] = [];
  for (const source of sources) {
    if (source.fileId === null)
      return {
        ok: false,
        failure: { message: `source ${sourceName(job, source)} has no uploaded file`, permanent: true },
      };
    try {
      const blob = await openFileBlob(db, source.fileId);
      const audio = await media.decodeAudio(blob, { label: source.label, sampleRate: DIARIZE_SAMPLE_RATE, signal });
      channels.push(
        toReferenceTimeline(audio.samples, audio.sampleRate, source.offsetMs ?? 0, source.driftPpm ?? 0, lengthMs),
      );
    } catch (error) {
      if (signal.aborted) throw error;
      return { ok: false, failure: mediaFailure(job, source, error) };
    }
  }
  const mix = mixDown(channels); // every channel is lengthMs long on the reference timeline
  const audio = monoWavBlob(mix, DIARIZE_SAMPLE_RATE);
  const decodedAt = performance.now();

  const requestId = `diarize_${job.id}_${Date.now()}`;
  const analysis = workers.analysis();
  const onAbort = (): void => void analysis.abort(requestId);
  signal.addEventListener('abort', onAbort, { once: true });
  let response;
  try {
    response = await analysis.diarize(
      transfer(
        {
          channels,
          sampleRate: DIARIZE_SAMPLE_RATE,
          modelUrl: assets.vadModelUrl,
          ortWasmPath: assets.ortWasmPath,
          ...(assets.segmentationModelUrl ? { segmentationModelUrl: assets.segmentationModelUrl } : {}),
          ...(assets.embeddingModelUrl ? { embeddingModelUrl: assets.embeddingModelUrl } : {}),
        },
        channels.map((c) => c.buffer as ArrayBuffer),
      ),
      requestId,
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  signal.throwIfAborted();
  if (!response.ok) {
    // A model the host supplied and that cannot be used: say which, never fall back silently.
    const { message, permanent } = response.modelFailure;
    return { ok: false, failure: { message: `speaker detection: ${message}`, permanent } };
  }
  const names = sources.map((s) => sourceName(job, s)).join(', ');
  if (response.result.kind === 'no-speech') {
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
      audio,
      quietRanges: response.quietRanges,
    },
    metrics: {
      decodeMs: Math.round(decodedAt - startedAt),
      vadLoadMs: Math.round(response.vadLoadMs),
      vadMs: Math.round(response.vadMs),
      diarizeMs: Math.round(response.elapsedMs - response.vadMs),
      vadProvider: response.vadProvider,
      vadLanes: response.vadLanes,
      channels: channels.length,
      ...hostModelMetrics(response.hostModels),
    },
  };
};
