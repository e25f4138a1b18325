/**
 * The speaker-detection service: what the analysis worker (workers/analysis.worker.ts) exposes
 * as {@link AnalysisWorkerApi}. The syncing stage's alignment calls, and the diarizing stage's
 * one call: place the decoded sources on the reference timeline (place.ts), mix them into the
 * job's audio (mix.ts, which measures each source's loudness blocks in the same pass), then
 * detect the speakers (detect.ts) and plan each speaker's levelling from those blocks
 * (src/analysis/audio/recorded-levels.ts). Per-mic jobs keep their long
 * signals in a scratch folder of the private file system (src/media/scratch.ts) where it has
 * room.
 *
 * @module
 */
import { recordedLevels } from '../analysis/audio/recorded-levels.ts';
import { alignSources, SyncError } from '../analysis/sync/sync.ts';
import { alignWithTails } from '../analysis/sync/sync-tails.ts';
import { removeScratch, ScratchSpace, type ScratchSamples } from '../media/scratch.ts';
import { SpeakerDetector } from './detect.ts';
import { mixOf, mixOfStored } from './mix.ts';
import { placeChannels } from './place.ts';
import type { AnalysisWorkerApi, DiarizeSourcesOutcome, DiarizeSourcesRequest } from './protocol.ts';
import { release } from './signals.ts';

/**
 * A new service, holding its models between calls (one per worker).
 *
 * @example
 * // workers/analysis.worker.ts
 * expose(createSpeakerService());
 */
export function createSpeakerService(): AnalysisWorkerApi {
  const running = new Map<string, AbortController>();
  const detector = new SpeakerDetector();
  /** Runs a call abortable with `abort(requestId)`. */
  const tracked = async <T>(requestId: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    running.set(requestId, controller);
    try {
      return await run(controller.signal);
    } finally {
      running.delete(requestId);
    }
  };
  return {
    async align(signals, referenceId, origin) {
      try {
        const options = { ...(referenceId === undefined ? {} : { referenceId }), ...(origin ? { origin } : {}) };
        return { ok: true, alignments: alignSources(signals, options) };
      } catch (error) {
        if (error instanceof SyncError) return { ok: false, failures: error.failures };
        throw error;
      }
    },
    async alignTails(head, tails) {
      return alignWithTails(head, tails);
    },
    diarizeSources(request, requestId) {
      return tracked(requestId, (signal) => diarizeSources(detector, request, signal));
    },
    async dropScratch(name) {
      await removeScratch(name);
    },
    abort(requestId) {
      running.get(requestId)?.abort(new DOMException('the stage was cancelled', 'AbortError'));
    },
  };
}

/** The scratch folder of a diarize call: the request's, a new one for per-mic jobs, or none. */
async function scratchFor(request: DiarizeSourcesRequest): Promise<ScratchSpace | null> {
  const { sources, lengthMs, scratch: folder, keepInMemory } = request;
  // Per-mic: the channels wait on disk while the VAD runs (an hour of three mics is 0.7 GB),
  // where the private file system has room; a single mix stays in memory. Sources decoded
  // into a scratch folder are replaced there by their channels, one by one.
  const channelBytes = 4 * Math.ceil((lengthMs * request.sampleRate) / 1000);
  if (folder) return ScratchSpace.create(0, folder);
  return sources.length > 1 && !keepInMemory ? ScratchSpace.create(sources.length * channelBytes * 1.2) : null;
}

/** {@link AnalysisWorkerApi.diarizeSources}: place, mix, detect. */
async function diarizeSources(
  detector: SpeakerDetector,
  request: DiarizeSourcesRequest,
  signal: AbortSignal,
): Promise<DiarizeSourcesOutcome> {
  const t0 = performance.now();
  const { sources: _sources, lengthMs: _lengthMs, scratch: _folder, keepInMemory: _keep, ...rest } = request;
  const scratch = await scratchFor(request);
  let inMemory: Float32Array[] = [];
  let kept = false;
  try {
    const placed = await placeChannels(request, scratch);
    const stored = scratch ? (placed as ScratchSamples[]) : null;
    if (!stored) inMemory = placed as Float32Array[];
    const { audio, mix, energies } = stored
      ? await mixOfStored(stored, request.sampleRate, scratch!)
      : mixOf(inMemory, request.sampleRate);
    const prepareMs = performance.now() - t0;
    signal.throwIfAborted();
    // After the VAD, a single channel on disk is read back, and its file goes (per-mic
    // detection reads the channels where they are).
    const readBack = async (): Promise<Float32Array[]> => {
      if (!stored) return inMemory;
      for (const file of stored) {
        inMemory.push(file.readAll());
        await scratch!.drop(file);
      }
      return inMemory;
    };
    const channels = stored ?? inMemory;
    const outcome = await detector.diarizeChannels({ ...rest, channels }, mix, signal, readBack, scratch);
    if (!outcome.ok) return outcome;
    kept = scratch !== null;
    // Each source's loudness as recorded and its speakers' planned levelling (the turns are known now).
    const turns = outcome.result.kind === 'speakers' ? outcome.result.turns : [];
    const levels = recordedLevels(energies, turns);
    // The WAV stays in the scratch folder until the page has stored it (dropScratch).
    return { ...outcome, audio, prepareMs, levels, ...(scratch ? { scratch: scratch.name } : {}) };
  } finally {
    // An hour of channels is 0.7 GB: freed now, not left for the render to run beside.
    for (const channel of inMemory) release(channel);
    if (scratch && !kept) await scratch.remove();
  }
}
