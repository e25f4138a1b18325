/**
 * The syncing stage: probe every source (duration, codecs), decode its audio in the media
 * worker, and place every source on the reference timeline in the analysis worker. Two
 * sources are decoded at a time (the worker's demuxing and the browser's decoder threads keep
 * both cores busy), at the sync analysis rate.
 *
 * Long recordings are not decoded whole: when every source is at least {@link SPARSE_MIN_MS}
 * (20 minutes) long, the first {@link SYNC_HEAD_MS} of each give the offsets and one
 * {@link SYNC_TAIL_MS} stretch near the end of each source's overlap with the reference gives
 * the drift (src/analysis/sync/sync-tails.ts): eight minutes decoded per source instead of an hour.
 * When the heads or a tail do not align (sources that started minutes apart, a silent
 * stretch), the stage decodes everything and aligns the whole recordings, as for short ones.
 *
 * @module
 */
import { transfer } from 'comlink';
import { planTails, type SyncPiece, type TailPair } from '../../analysis/sync/sync-tails.ts';
import type { SyncSignal } from '../../analysis/sync/sync.ts';
import { undecodableSourceMessage } from '../../media/decodability.ts';
import type { AudioRange, MediaProbe } from '../../media/protocol.ts';
import type { SourceRecord } from '../../store/db.ts';
import { openFileBlob } from '../../store/files.ts';
import type { NewWarning } from '../../contract/warnings.ts';
import type { ProbedSourceMedia, StageFailure, SyncingOutput } from '../../jobs/reporter.ts';
import type { AlignResult } from '../../speakers/protocol.ts';
import { mediaFailure, sourceName, twoAtATime, withLabels, type StageRun, type StageRunner } from './context.ts';

/** The rate sources are decoded at for sync (alignSources correlates at 8 kHz). */
export const SYNC_SAMPLE_RATE = 8000;
/** How much of each long source's start is decoded for the offsets. */
export const SYNC_HEAD_MS = 6 * 60_000;
/** How long a stretch near the end is decoded for the drift. */
export const SYNC_TAIL_MS = 2 * 60_000;
/**
 * Sources at least this long (all of them) are synced from heads and tails. Below it there is
 * little to save: heads and tails decode about 56 minutes of audio for seven sources (each
 * head, each tail, and the reference's matching stretch), the whole of seven 10-minute
 * sources is 70.
 */
export const SPARSE_MIN_MS = 20 * 60_000;

/**
 * The shortest source syncing accepts. The alignment (src/analysis/sync/sync.ts) compares at least
 * 5 s of sound where it can, never less than 1 s, and places fine windows of 2 s in the overlap;
 * shorter clips either cannot be compared at all or only when they happen to start together.
 * Pages check it when a file is picked (the demo), the stage when it probes.
 */
export const MIN_SYNC_SOURCE_MS = 5_000;

/** One decode: a source, whole or a stretch of it. */
interface DecodeItem {
  source: SourceRecord;
  range?: AudioRange;
}

type Decoded = { ok: true; samples: Float32Array[] } | { ok: false; failure: StageFailure };

/** The warning of a source the browser could not read, read by ffmpeg.wasm instead. */
export function decoderFallbackWarning(run: StageRun, source: SourceRecord, reason: string): NewWarning {
  return {
    code: 'decoder_fallback',
    message:
      `the browser could not read source ${sourceName(run.job, source)} (${reason}), so the slower ffmpeg.wasm ` +
      'decoder read it: the edit is unaffected, but this file takes longer to process',
    sourceId: source.id,
    stage: 'syncing',
  };
}

/**
 * Decodes `items` at {@link SYNC_SAMPLE_RATE}, two at a time; the first failure (in item order)
 * stops the rest. `onDone` is called after each.
 */
async function decodeItems(
  run: StageRun,
  items: readonly DecodeItem[],
  onDone: () => void,
  warnings: NewWarning[],
): Promise<Decoded> {
  const { db, job, workers, signal } = run;
  const media = workers.media();
  const samples: Float32Array[] = [];
  const failures: Array<StageFailure | undefined> = [];
  const decodeOne = async (index: number): Promise<void> => {
    const { source, range } = items[index]!;
    try {
      const blob = await openFileBlob(db, source.fileId!);
      const audio = await media.decodeAudio(blob, {
        label: source.label,
        sampleRate: SYNC_SAMPLE_RATE,
        signal,
        ...(range ? { range } : {}),
        // The worker's per-second decode progress: a sign of life for the engine's stall watchdog.
        ...(run.alive ? { onProgress: run.alive } : {}),
      });
      samples[index] = audio.samples;
      if (audio.fallbackReason !== undefined) warnings.push(decoderFallbackWarning(run, source, audio.fallbackReason));
    } catch (error) {
      if (signal.aborted) throw error;
      failures[index] = mediaFailure(job, source, error);
      return;
    }
    onDone();
  };
  await twoAtATime(items.length, decodeOne, () => failures.length > 0);
  const failure = failures.find((f) => f !== undefined);
  return failure === undefined ? { ok: true, samples } : { ok: false, failure };
}

/** The Job source fields of a probe: the video's exact rate and display size, the audio's rate and channels. */
export function probedMedia(probe: Pick<MediaProbe, 'video' | 'audio' | 'timecode'>): ProbedSourceMedia {
  const out: ProbedSourceMedia = {};
  if (probe.timecode) out.timecode = probe.timecode;
  const v = probe.video;
  if (v) {
    if (v.frameRateExact) {
      out.frameRateExact = v.frameRateExact;
      out.frameRate = v.frameRateExact.num / v.frameRateExact.den;
      out.variableFrameRate = v.variableFrameRate;
    } else if (v.frameRate !== null) out.frameRate = v.frameRate;
    if (v.width > 0 && v.height > 0) {
      out.width = v.width;
      out.height = v.height;
    }
  }
  const a = probe.audio;
  if (a && a.sampleRate > 0) out.sampleRate = a.sampleRate;
  if (a && a.channels > 0) out.channels = a.channels;
  return out;
}

/** Probes every source: durations and formats, or the first source that cannot be synced. */
async function probeAll(
  run: StageRun,
  warnings: NewWarning[],
): Promise<
  | { ok: true; durationsMs: Record<string, number>; media: Record<string, ProbedSourceMedia> }
  | { ok: false; failure: StageFailure }
> {
  const { db, job, workers, signal } = run;
  const durationsMs: Record<string, number> = {};
  const media: Record<string, ProbedSourceMedia> = {};
  // Found when the upload completed (routes/uploads.ts): fail before any decoder reads a file.
  const notMedia = job.sources.find((s) => s.mediaProblem);
  if (notMedia?.mediaProblem)
    return { ok: false, failure: { message: notMedia.mediaProblem.message, permanent: true } };
  for (const source of job.sources) {
    if (source.fileId === null)
      return {
        ok: false,
        failure: { message: `source ${sourceName(job, source)} has no uploaded file`, permanent: true },
      };
    try {
      const probe = await workers.media().probe(await openFileBlob(db, source.fileId), { label: source.label, signal });
      durationsMs[source.id] = Math.round(probe.durationMs);
      media[source.id] = probedMedia(probe);
      // A codec this browser cannot decode fails here, by the file and the codec, before any decoding.
      const undecodable = undecodableSourceMessage({
        name: sourceName(job, source),
        kind: source.kind,
        engine: probe.engine,
        container: probe.container,
        video: probe.video,
        audio: probe.audio,
        ffmpegCore: run.assets.ffmpegWasmBase !== undefined,
      });
      // Permanent: the same file in the same browser is as undecodable on a retry.
      if (undecodable !== null) return { ok: false, failure: { message: undecodable, permanent: true } };
      if (probe.durationMs < MIN_SYNC_SOURCE_MS)
        return {
          ok: false,
          // Permanent: the same file is as short on a retry.
          failure: {
            message:
              `source ${sourceName(job, source)} is only ${(probe.durationMs / 1000).toFixed(1)} s long; syncing needs ` +
              `at least ${MIN_SYNC_SOURCE_MS / 1000} s of sound from every source: use a longer recording`,
            permanent: true,
          },
        };
      if (probe.fallbackReason !== undefined) warnings.push(decoderFallbackWarning(run, source, probe.fallbackReason));
      if (probe.audio === null)
        return {
          ok: false,
          failure: {
            message: `source ${sourceName(job, source)} has no audio track, so it cannot be synced`,
            permanent: true,
          },
        };
    } catch (error) {
      if (signal.aborted) throw error;
      return { ok: false, failure: mediaFailure(job, source, error) };
    }
  }
  return { ok: true, durationsMs, media };
}

/** Aligns from heads and tails; null when they do not align (the caller decodes everything). */
async function alignSparse(
  run: StageRun,
  durationsMs: Record<string, number>,
  progress: (fraction: number) => void,
  warnings: NewWarning[],
): Promise<{ ok: true; result: AlignResult } | { ok: false; failure: StageFailure } | null> {
  const { job, workers, signal } = run;
  const sources = job.sources;
  const heads = await decodeItems(
    run,
    sources.map((source) => ({ source, range: { startMs: 0, endMs: SYNC_HEAD_MS } })),
    () => progress(0.6 / sources.length),
    warnings,
  );
  if (!heads.ok) return heads;
  signal.throwIfAborted();
  const headSignals: SyncSignal[] = sources.map((s, i) => ({
    id: s.id,
    samples: heads.samples[i]!,
    sampleRate: SYNC_SAMPLE_RATE,
  }));
  const head = await workers.analysis().align(
    transfer(
      headSignals,
      headSignals.map((s) => s.samples.buffer as ArrayBuffer),
    ),
    undefined,
    'reference',
  );
  signal.throwIfAborted();
  if (!head.ok) return null;
  const plans = planTails(head.alignments, durationsMs, SYNC_HEAD_MS, SYNC_TAIL_MS);
  const byId = new Map(sources.map((s) => [s.id, s]));
  const reference = byId.get(head.alignments.find((a) => a.isReference)!.id)!;
  // The reference's stretch is decoded once per distinct place (usually one for every tail).
  const items: DecodeItem[] = [];
  const itemAt = new Map<string, number>();
  const itemOf = (source: SourceRecord, startMs: number, lengthMs: number): number => {
    const key = `${source.id}@${startMs}`;
    let index = itemAt.get(key);
    if (index === undefined) {
      index = items.push({ source, range: { startMs, endMs: startMs + lengthMs } }) - 1;
      itemAt.set(key, index);
    }
    return index;
  };
  const pairs = plans.map((p) => ({
    reference: itemOf(reference, p.referenceStartMs, p.lengthMs),
    source: itemOf(byId.get(p.id)!, p.sourceStartMs, p.lengthMs),
  }));
  const tailAudio = await decodeItems(run, items, () => progress(0.4 / Math.max(1, items.length)), warnings);
  if (!tailAudio.ok) return tailAudio;
  signal.throwIfAborted();
  const piece = (i: number): SyncPiece => ({
    id: items[i]!.source.id,
    samples: tailAudio.samples[i]!,
    sampleRate: SYNC_SAMPLE_RATE,
    startMs: items[i]!.range!.startMs,
  });
  const tails: TailPair[] = pairs.map((p) => ({ reference: piece(p.reference), source: piece(p.source) }));
  const result = await workers.analysis().alignTails(
    head.alignments,
    transfer(
      tails,
      // Each decoded stretch once: a shared reference stretch cannot be transferred twice.
      tailAudio.samples.map((x) => x.buffer as ArrayBuffer),
    ),
  );
  signal.throwIfAborted();
  return result.ok ? { ok: true, result } : null;
}

/** Runs the syncing stage of one job. */
export const runSyncing: StageRunner<'syncing'> = async (run) => {
  const { db, job, workers, signal, onProgress } = run;
  // The cameras' motion for the mapping stage, sampled in the vision worker meanwhile.
  for (const source of job.sources) {
    const fileId = source.fileId;
    if (source.kind === 'video' && fileId !== null)
      workers.cameraMotion(job.id, source.id, () => openFileBlob(db, fileId)).catch(() => undefined);
  }
  const startedAt = performance.now();
  // Fallbacks taken on the way, once per source (a source read twice, head and tail, warns once).
  const warnings: NewWarning[] = [];
  const warned = (): { warnings?: NewWarning[] } => {
    const unique = warnings.filter((w, i) => warnings.findIndex((x) => x.sourceId === w.sourceId) === i);
    return unique.length > 0 ? { warnings: unique } : {};
  };
  const fail = (failure: StageFailure): { ok: false; failure: StageFailure; warnings?: NewWarning[] } => {
    workers.dropCameraMotion(job.id);
    return { ok: false, failure, ...warned() };
  };
  const probed = await probeAll(run, warnings);
  if (!probed.ok) return fail(probed.failure);
  const { durationsMs, media } = probed;
  let done = 0;
  const progress = (share: number): void => onProgress(Math.min(0.95, (done += share)));

  let mode: 'heads-and-tails' | 'whole' = 'whole';
  let aligned: AlignResult | null = null;
  if (Object.values(durationsMs).every((ms) => ms >= SPARSE_MIN_MS)) {
    const sparse = await alignSparse(run, durationsMs, progress, warnings);
    if (sparse && !sparse.ok) return fail(sparse.failure);
    if (sparse) {
      aligned = sparse.result;
      mode = 'heads-and-tails';
    }
  }
  if (aligned === null) {
    done = 0;
    const whole = await decodeItems(
      run,
      job.sources.map((source) => ({ source })),
      () => progress(1 / (job.sources.length + 1)),
      warnings,
    );
    if (!whole.ok) return fail(whole.failure);
    signal.throwIfAborted();
    const signals: SyncSignal[] = job.sources.map((s, i) => ({
      id: s.id,
      samples: whole.samples[i]!,
      sampleRate: SYNC_SAMPLE_RATE,
    }));
    aligned = await workers.analysis().align(
      transfer(
        signals,
        signals.map((s) => s.samples.buffer as ArrayBuffer),
      ),
    );
    signal.throwIfAborted();
  }
  if (!aligned.ok) return fail({ message: withLabels(job, aligned.failures.map((f) => f.message).join('; ')) });
  const output: SyncingOutput = { durationsMs, offsetsMs: {}, driftPpm: {}, media };
  for (const a of aligned.alignments) {
    output.offsetsMs![a.id] = a.offsetMs;
    output.driftPpm![a.id] = a.driftPpm;
  }
  return { ok: true, output, ...warned(), metrics: { mode, ms: Math.round(performance.now() - startedAt) } };
};
