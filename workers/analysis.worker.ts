/**
 * The engine's analysis worker: exposes {@link AnalysisWorkerApi} (src/media/analysis-protocol.ts)
 * with comlink. The engine runner (src/pipeline/runner.ts) starts it for the syncing and
 * diarizing stages.
 *
 * @module
 */
import { expose, transfer, wrap, type Remote } from 'comlink';
import { diarizeMix, type MixOptions } from '../src/analysis/diarize/mix.ts';
import { faceSplitHint } from '../src/analysis/faces/face-evidence.ts';
import { diarizeFiltered, diarizePerMic, lowCutChannels } from '../src/analysis/diarize/per-mic.ts';
import { fineFrames, residualLevelsRead, type ResidualHelper } from '../src/analysis/diarize/residual-levels.ts';
import type { DiarizationResult } from '../src/analysis/diarize/result.ts';
import { envelopeDb, findQuietRanges } from '../src/analysis/energy.ts';
import { mixDown } from '../src/analysis/signal-mix.ts';
import { placeOnReference, toReferenceTimeline } from '../src/analysis/reference-timeline.ts';
import { alignSources, SyncError } from '../src/analysis/sync.ts';
import { alignWithTails } from '../src/analysis/sync-tails.ts';
import {
  pickExecutionProvider,
  type ExecutionProviderName,
  type GpuLike,
  type OrtModule,
} from '../src/models/ort-runtime.ts';
import { SILERO_FRAME_SAMPLES, type SileroVad } from '../src/models/silero-vad.ts';
import {
  BLEED_GATE_MARGIN_DB,
  closeMicStretches,
  joinStretches,
  joinStretchesTo,
  spreadGated,
} from '../src/analysis/vad-gate.ts';
import { resample } from '../src/analysis/signal-resample.ts';
import { HostModelError, HostModelSlots } from '../src/models/host-models.ts';
import { startSilero } from '../src/models/silero-loader.ts';
import { fetchServed } from '../src/models/served-asset.ts';
import { monoPcm16, monoWavBlob } from '../src/render/wav.ts';
import { ScratchSamples, ScratchSpace, removeScratch } from '../src/media/scratch.ts';
import type { SampleInput } from '../src/analysis/sample-reader.ts';
import type { TimeRange } from '../src/contract/types.ts';
import {
  ResidualShare,
  VAD_LANES_MAX,
  type AnalysisWorkerApi,
  type DiarizeOutcome,
  type DiarizeRequest,
  type DiarizeSourcesOutcome,
  type DiarizeSourcesRequest,
  type HostModelSlot,
  type HostModelUse,
  type VadLaneApi,
} from '../src/media/analysis-protocol.ts';

const running = new Map<string, AbortController>();

/**
 * A diarize request inside this worker: its channels in memory, or (a per-mic job, while the
 * VAD runs) in files of the private file system, read by range.
 */
type HeldRequest = Omit<DiarizeRequest, 'channels'> & { channels: SampleInput[] };

/** A signal in memory: `input` itself, or a copy read from its file. */
function wholeSignal(input: SampleInput): Float32Array {
  return input instanceof Float32Array ? input : input.read(0, input.length);
}

/**
 * Frees a signal's memory now rather than at some later garbage collection (an hour of 16 kHz
 * audio is 0.2 GB): its buffer is detached (`ArrayBuffer.prototype.transfer`, where the browser
 * has it). Only for a signal that owns its whole buffer and that nothing reads again.
 */
function release(signal: Float32Array): void {
  const buffer = signal.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  // A detached buffer (sent to a VAD lane) has no bytes left to free.
  if (buffer.byteLength > 0 && signal.byteOffset === 0 && signal.byteLength === buffer.byteLength) buffer.transfer?.(0);
}
/**
 * Silero, the onnxruntime-web build it was loaded with (`onnxruntime-web/wasm`, or the JSEP
 * build when VAD runs on WebGPU; the host models use the same build) and the model file (for
 * the VAD lanes).
 */
interface LoadedVad {
  model: SileroVad;
  runtime: OrtModule;
  bytes: Uint8Array;
}
let vad: Promise<LoadedVad> | undefined;

/** Loads Silero on WebGPU when the worker sees a hardware adapter, else (or if that fails) on wasm. */
function loadVad(request: HeldRequest): Promise<LoadedVad> {
  vad ??= (async () => {
    const response = await fetchServed(request.modelUrl, 'the VAD model');
    const bytes = new Uint8Array(await response.arrayBuffer());
    // Only the chosen build is imported: the wasm path never downloads the JSEP bundle.
    const start = async (executionProvider: ExecutionProviderName): Promise<LoadedVad> => {
      // A missing wasm file is named here; onnxruntime itself says only "no available backend found".
      const wasm = `ort-wasm-simd-threaded${executionProvider === 'webgpu' ? '.jsep' : ''}.wasm`;
      await fetchServed(new URL(wasm, request.ortWasmPath).href, "onnxruntime-web's wasm", { method: 'HEAD' });
      return { ...(await startSilero(executionProvider, bytes, request.ortWasmPath)), bytes };
    };
    if ((await pickExecutionProvider((navigator as WorkerNavigator & { gpu?: GpuLike }).gpu)) === 'webgpu') {
      try {
        return await start('webgpu');
      } catch (error) {
        // An adapter that cannot create the session (driver, limits) must not stop the job.
        console.warn('VAD on WebGPU failed, using wasm:', error);
      }
    }
    return start('wasm');
  })().catch((error: unknown) => {
    vad = undefined;
    throw error;
  });
  return vad;
}

/** Channels shorter than this run in one lane unless the request asks for more. */
const LANE_MIN_SECONDS = 120;

/** How many lanes the request's VAD may use: several for minutes of audio on several cores. */
function lanesWanted(request: HeldRequest): number {
  const cores = navigator.hardwareConcurrency || 1;
  // A lane takes about a second to start (onnxruntime and the model): worth it for minutes of audio, not seconds.
  const long = request.channels.some((c) => c.length >= LANE_MIN_SECONDS * request.sampleRate);
  return request.vadLanes ?? (cores > 1 && long ? VAD_LANES_MAX : 1);
}

/** How long a share of the residuals may wait to be taken, and a lane that took one may go quiet, ms. */
const SHARE_START_MS = 10_000;
const SHARE_STALL_MS = 30_000;

/**
 * Waits, without yielding, until the lane has measured its share (true) or cannot (false: it
 * failed, did not take it in time, or went quiet; the share is then withdrawn).
 */
function awaitShare(state: Int32Array): boolean {
  let beat = Atomics.load(state, 1);
  let since = performance.now();
  for (;;) {
    const now = performance.now();
    const at = Atomics.load(state, 0);
    if (at === ResidualShare.done) return true;
    if (at === ResidualShare.failed || at === ResidualShare.withdrawn) return false;
    const b = Atomics.load(state, 1);
    if (b !== beat) {
      beat = b;
      since = now;
    } else if (now - since > (at === ResidualShare.waiting ? SHARE_START_MS : SHARE_STALL_MS)) {
      if (Atomics.compareExchange(state, 0, at, ResidualShare.withdrawn) === at) return false;
      continue;
    }
    Atomics.wait(state, 0, at, 1000);
  }
}

/**
 * A lane (vad-lane.worker.ts) that measures half of the crosstalk residuals beside this
 * worker, in shared memory; `null` where memory cannot be shared (not cross-origin isolated)
 * or one core does it all. `used` says whether it measured its share.
 */
function residualLane(
  request: HeldRequest,
  scratch: ScratchSpace | null,
): { helper: Promise<ResidualHelper>; used(): 'files' | 'copies' | null; close(): void } | null {
  if (request.channels.length < 2 || lanesWanted(request) < 2) return null;
  if (!self.crossOriginIsolated || typeof SharedArrayBuffer === 'undefined') return null;
  const worker = new Worker(new URL('./vad-lane.worker.ts', import.meta.url), { type: 'module' });
  const remote = wrap<VadLaneApi>(worker);
  let used: 'files' | 'copies' | null = null;
  const helper: ResidualHelper = (job) => {
    const n = job.channels.length;
    const fine = fineFrames(job.sampleRate, job.from, job.length);
    const shared = new SharedArrayBuffer(8 * n * (job.frames + fine));
    const out = {
      coarse: job.channels.map((_, i) => new Float64Array(shared, 8 * i * job.frames, job.frames)),
      fine: job.channels.map((_, i) => new Float64Array(shared, 8 * (n * job.frames + i * fine), fine)),
    };
    const state = new Int32Array(new SharedArrayBuffer(8));
    const { channels, ...rest } = job;
    // Channels in files this worker opened read-only: the lane opens them too and reads its
    // share a piece at a time (an hour's share of three mics is 0.35 GB). Else it gets copies.
    const files = scratch && channels.every((c) => c instanceof ScratchSamples && c.readOnly);
    if (files) {
      const names = channels.map((c) => (c as ScratchSamples).name);
      remote.residualLevelsFromFiles({ ...rest, out }, { folder: scratch.name, names }, state).catch(() => undefined);
    } else {
      // The lane's own copies of its share, transferred (a view would clone the whole channel).
      const origin = Math.max(0, job.from - 2 * job.weights.hop);
      const copies = channels.map((c) => c.read(origin, job.length).slice());
      remote
        .residualLevels(
          transfer(
            { ...rest, channels: copies, origin, out },
            copies.map((c) => c.buffer),
          ),
          state,
        )
        .catch(() => undefined);
    }
    return () => {
      const measured = awaitShare(state);
      used = measured ? (files ? 'files' : 'copies') : null;
      return measured ? out : residualLevelsRead(job);
    };
  };
  // A lane that never answers gives no helper: this worker then measures it all.
  const helper$ = Promise.race([
    remote.ready().then(() => helper),
    new Promise<ResidualHelper>((resolve) => setTimeout(() => resolve(() => null), SHARE_START_MS)),
  ]);
  worker.addEventListener('error', () => undefined);
  return {
    helper: helper$,
    used: () => used,
    close: () => worker.terminate(),
  };
}

/**
 * Speech probabilities of every channel. On wasm several channels run at once
 * (`request.vadLanes`): this worker is the first lane, each further lane a worker of its own
 * (vad-lane.worker.ts), and every lane takes the next channel when it finishes one. A channel
 * goes to a lane and comes back transferred, never copied. On WebGPU, one after the other.
 * Close mics on disk: each one's VAD input (its gated stretches at 8 kHz) goes to a file in
 * `scratch` as it is made, and the lane that takes it reads it a window at a time.
 */
async function channelProbabilities(
  vad: LoadedVad,
  request: HeldRequest,
  signal: AbortSignal,
  scratch: ScratchSpace | null,
): Promise<{ probs: Float32Array[]; lanes: number; skipped: number; inputs: 'files' | 'memory' }> {
  // Close mics: the VAD runs on what is above each mic's floor, joined (see vad-gate.ts).
  const gated =
    request.channels.length > 1 && request.vadGate !== false
      ? closeMicStretches(
          request.channels,
          SILERO_FRAME_SAMPLES,
          request.vadBleedGate === false ? {} : { bleedMarginDb: BLEED_GATE_MARGIN_DB },
        )
      : null;
  // Close mics: Silero at 8 kHz (its 32 ms frames line up with the 16 kHz ones).
  const rate = request.vadRate ?? (request.channels.length > 1 ? 8000 : 16000);
  // What the VAD reads of each channel, made when a lane takes the channel (so no more copies
  // are held than lanes run), or the request's own channel when the VAD reads it as it is: a
  // lane transfers that away and back, and it is put back into the request. A channel on disk
  // is read a piece at a time.
  const copies =
    gated !== null || rate !== request.sampleRate || request.channels.some((c) => !(c instanceof Float32Array));
  const vadInput = (i: number): Float32Array => {
    const c = request.channels[i]!;
    if (!copies) return c as Float32Array;
    if (gated) return joinStretches(c, SILERO_FRAME_SAMPLES, gated[i]!, { from: request.sampleRate, to: rate });
    const whole = wholeSignal(c);
    if (rate === request.sampleRate) return whole === c ? whole.slice() : whole;
    const resampled = resample(whole, request.sampleRate, rate);
    if (whole !== c) release(whole);
    return resampled;
  };
  // An hour of a mic at 8 kHz is 0.12 GB: on disk, every lane's input at once would be 0.35 GB.
  const inputsOnDisk = scratch && gated && filesOf(request.channels) ? scratch : null;
  const inputs = inputsOnDisk ? 'files' : 'memory';
  const inputFile = async (i: number): Promise<ScratchSamples> => {
    const file = await inputsOnDisk!.samples(`vad-${i}.f32`);
    const rates = { from: request.sampleRate, to: rate };
    joinStretchesTo(request.channels[i]!, SILERO_FRAME_SAMPLES, gated![i]!, rates, (part) => file.append(part));
    return file;
  };
  const channels = request.channels;
  const total = request.channels.reduce((n, c) => n + c.length, 0);
  const kept = gated ? gated.reduce((n, g) => n + g.keep.reduce((k, s) => k + s.end - s.start, 0), 0) : 0;
  const skipped = gated ? 1 - (kept * SILERO_FRAME_SAMPLES) / Math.max(1, total) : 0;
  const wanted = lanesWanted(request);
  const lanes =
    vad.model.executionProvider === 'wasm' && wanted >= 1
      ? Math.max(1, Math.min(channels.length, Math.floor(wanted)))
      : 1;
  const probs: Float32Array[] = [];
  let next = 0;
  const here = async (): Promise<void> => {
    for (let i = next++; i < channels.length; i = next++) {
      if (inputsOnDisk) {
        const file = await inputFile(i);
        probs[i] = await vad.model.speechProbabilities(file, signal, rate);
        await inputsOnDisk.drop(file);
        continue;
      }
      const input = vadInput(i);
      probs[i] = await vad.model.speechProbabilities(input, signal, rate);
      if (copies) release(input);
    }
  };
  const spread = (): Float32Array[] => (gated ? spreadGated(probs, gated) : probs);
  if (lanes === 1) {
    await here();
    return { probs: spread(), lanes, skipped, inputs };
  }
  const workers = Array.from(
    { length: lanes - 1 },
    () => new Worker(new URL('./vad-lane.worker.ts', import.meta.url), { type: 'module' }),
  );
  // Calls into a lane that crashed (or never started) would never settle; an abort ends them all.
  const stopped = new Promise<never>((_, reject) => {
    for (const worker of workers) {
      worker.addEventListener('error', (event) =>
        reject(new Error(`a VAD lane failed: ${event.message || 'it could not start'}`)),
      );
    }
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  // The race below hears it; an abort after the lanes are done must not be an unhandled rejection.
  stopped.catch(() => undefined);
  const remotes = workers.map((worker) => wrap<VadLaneApi>(worker));
  // A worker this one starts comes up only while this one yields to its event loop, which the
  // VAD here does not do for a whole channel: the lanes are waited for first (else they sat
  // idle behind the first channel, 24 s of an hour's 48).
  try {
    await Promise.race([Promise.all(remotes.map((remote) => remote.ready())), stopped]);
  } catch (error) {
    for (const worker of workers) worker.terminate();
    throw error;
  }
  const lane = async (remote: Remote<VadLaneApi>): Promise<void> => {
    const model = { bytes: vad.bytes, ortWasmPath: request.ortWasmPath };
    for (let i = next++; i < channels.length; i = next++) {
      if (inputsOnDisk) {
        const file = await inputFile(i);
        const ref = inputsOnDisk.closeFile(file);
        probs[i] = await remote.probabilitiesFromFile(model, ref, rate);
        await inputsOnDisk.removeFile(ref.name);
        continue;
      }
      const channel = vadInput(i);
      const whole = channel.byteOffset === 0 && channel.byteLength === channel.buffer.byteLength;
      const back = await remote.probabilities(
        model,
        whole ? transfer(channel, [channel.buffer as ArrayBuffer]) : channel,
        rate,
      );
      if (copies) release(back.channel);
      else channels[i] = back.channel;
      probs[i] = back.probs;
    }
  };
  try {
    // The lanes first: each has its channel sent before the VAD here holds this thread.
    await Promise.race([Promise.all([...remotes.map(lane), here()]), stopped]);
  } finally {
    for (const worker of workers) worker.terminate();
  }
  return { probs: spread(), lanes, skipped, inputs };
}

let hostSlots: HostModelSlots | undefined;

/**
 * Speaker detection of the VAD'd channels: per-mic with several, single-mix with one, where
 * the host's segmentation and speaker-embedding models (when supplied) give overlap and
 * speaker similarity; they run (on wasm) in `runtime`, the ort module the VAD was loaded
 * with. Throws HostModelError when a supplied model cannot be used.
 */
async function detectSpeakers(
  runtime: OrtModule,
  request: DiarizeRequest,
  probs: readonly Float32Array[],
  signal: AbortSignal,
  residualHelper: ResidualHelper | undefined,
): Promise<{
  result: DiarizationResult;
  hostModels: Record<HostModelSlot, HostModelUse>;
  faceSplit?: { from: number; to: number };
}> {
  if (request.channels.length > 1) {
    return {
      result: diarizePerMic(request.channels, request.sampleRate, probs, {
        overwriteChannels: true,
        ...(residualHelper ? { residualHelper } : {}),
      }),
      hostModels: HostModelSlots.skippedPerMic(request),
    };
  }
  const mix = request.channels[0]!;
  if (hostSlots?.runtime !== runtime) {
    void hostSlots?.dispose();
    hostSlots = new HostModelSlots(runtime);
  }
  const host = await hostSlots.run(request, mix, signal);
  signal.throwIfAborted();
  const options: MixOptions = {
    ...(host.overlap ? { overlap: host.overlap } : {}),
    ...(host.localSpeakers ? { localSpeakers: host.localSpeakers } : {}),
    ...(host.embeddings ? { embeddings: host.embeddings } : {}),
  };
  const result = diarizeMix(mix, request.sampleRate, probs[0]!, options);
  // Faces that say two people talk where the audio found one: look again for more speakers.
  const hint = result.kind === 'speakers' && request.faces ? faceSplitHint(result.turns, request.faces) : null;
  if (hint && result.kind === 'speakers' && hint.minSpeakers > result.speakers.length) {
    const again = diarizeMix(mix, request.sampleRate, probs[0]!, { ...options, minSpeakers: hint.minSpeakers });
    // Taken only when it found more speakers and the faces now agree with it.
    if (
      again.kind === 'speakers' &&
      again.speakers.length > result.speakers.length &&
      faceSplitHint(again.turns, request.faces!) === null
    ) {
      return {
        result: again,
        hostModels: host.uses,
        faceSplit: { from: result.speakers.length, to: again.speakers.length },
      };
    }
  }
  return { result, hostModels: host.uses };
}

/** The channels as scratch files, or null where any is not one. */
function filesOf(channels: readonly SampleInput[]): ScratchSamples[] | null {
  return channels.every((c) => c instanceof ScratchSamples) ? (channels as ScratchSamples[]) : null;
}

/**
 * Per-mic detection of channels on disk: each goes through the low cut back into its own file
 * (its levels measured as it goes), then is read a piece at a time, the files opened again
 * read-only so that the residual lane reads them too. An hour of three mics (0.7 GB) is never
 * in memory; the files go once it is done.
 */
async function perMicOnDisk(
  stored: readonly ScratchSamples[],
  scratch: ScratchSpace,
  sampleRate: number,
  probs: readonly Float32Array[],
  helper: ResidualHelper | undefined,
): Promise<DiarizationResult> {
  const levels = lowCutChannels(stored, sampleRate, probs, (i, at, block) => stored[i]!.write(at, block));
  const files: ScratchSamples[] = [];
  try {
    for (const file of stored) files.push(await scratch.readOnly(file));
    const channels = files.map((samples, i) => ({ samples, levels: levels[i]! }));
    return diarizeFiltered(channels, sampleRate, probs, helper ? { residualHelper: helper } : {});
  } finally {
    for (const file of files) await scratch.drop(file);
  }
}

/** Runs a diarize call abortable with {@link AnalysisWorkerApi.abort} and `requestId`. */
async function tracked<T>(requestId: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  running.set(requestId, controller);
  try {
    return await run(controller.signal);
  } finally {
    running.delete(requestId);
  }
}

/**
 * VAD and speaker detection of channels already on the reference timeline; `quietRanges` are
 * the mix's, found by the caller (who then lets the mix go). Per-mic detection overwrites the
 * channels (their low-cut copies, in place): on disk, where they are ({@link perMicOnDisk});
 * else in memory (`inMemory`, which reads a single channel on disk back).
 */
async function diarizeChannels(
  request: HeldRequest,
  quietRanges: TimeRange[],
  signal: AbortSignal,
  inMemory: () => Promise<Float32Array[]>,
  scratch: ScratchSpace | null,
): Promise<DiarizeOutcome> {
  const t0 = performance.now();
  // Started now, so that it is up when the VAD is done.
  const lane = residualLane(request, scratch);
  let detected;
  let ran;
  try {
    const loaded = await loadVad(request);
    const loadMs = performance.now() - t0;
    const { probs, lanes, skipped, inputs } = await channelProbabilities(loaded, request, signal, scratch);
    signal.throwIfAborted();
    ran = { loaded, loadMs, lanes, skipped, inputs, vadMs: performance.now() - t0 };
    const helper = lane ? await lane.helper : undefined;
    const onDisk = request.channels.length > 1 && scratch ? filesOf(request.channels) : null;
    detected = onDisk
      ? {
          result: await perMicOnDisk(onDisk, scratch!, request.sampleRate, probs, helper),
          hostModels: HostModelSlots.skippedPerMic(request),
        }
      : await detectSpeakers(loaded.runtime, { ...request, channels: await inMemory() }, probs, signal, helper);
  } catch (error) {
    if (error instanceof HostModelError) return { ok: false, modelFailure: error.failure };
    throw error;
  } finally {
    lane?.close();
  }
  const { loaded, loadMs, lanes, skipped, inputs, vadMs } = ran;
  const model = loaded.model;
  const { result, hostModels, faceSplit } = detected;
  return {
    ok: true,
    result,
    quietRanges,
    vadProvider: model.executionProvider,
    vadLanes: lanes,
    vadSkipped: skipped,
    vadInputs: inputs,
    residualThreads: lane?.used() ? 2 : 1,
    ...(lane?.used() ? { residualShare: lane.used()! } : {}),
    vadLoadMs: loadMs,
    vadMs,
    elapsedMs: performance.now() - t0,
    hostModels,
    ...(faceSplit ? { faceSplit } : {}),
  };
}

/**
 * The channels' mix as WAV (the job's audio) and its quiet ranges. The mix itself is not kept:
 * with several channels it is let go before the VAD (an hour of it is 0.2 GB).
 */
function mixOf(channels: readonly Float32Array[], sampleRate: number): { audio: Blob; quietRanges: TimeRange[] } {
  const mix = channels.length > 1 ? mixDown(channels) : channels[0]!; // every channel is lengthMs long
  const out = { audio: monoWavBlob(mix, sampleRate), quietRanges: findQuietRanges(envelopeDb(mix, sampleRate)) };
  if (channels.length > 1) release(mix);
  return out;
}

/** Envelope frames (10 ms) mixed, written and measured at once from channels on disk. */
const MIX_BLOCK_FRAMES = 4096;

/**
 * {@link mixOf} of channels on disk, a block at a time: the same mix, WAV and quiet ranges
 * (blocks are whole envelope frames), the WAV written to the scratch folder.
 */
async function mixOfStored(
  channels: readonly ScratchSamples[],
  sampleRate: number,
  scratch: ScratchSpace,
): Promise<{ audio: Blob; quietRanges: TimeRange[] }> {
  const length = channels[0]!.length;
  const hop = Math.round(sampleRate / 100);
  const block = hop * MIX_BLOCK_FRAMES;
  const wav = await scratch.wav('mix.wav', sampleRate);
  const envelope = new Float32Array(Math.floor(length / hop));
  for (let at = 0; at < length; at += block) {
    const mix = mixDown(channels.map((c) => c.read(at, at + block)));
    wav.append(monoPcm16(mix));
    envelope.set(envelopeDb(mix, sampleRate), at / hop);
  }
  return { audio: await wav.finish(), quietRanges: findQuietRanges(envelope) };
}

/**
 * Each source on the reference timeline, its own samples let go once placed. With `scratch`,
 * each channel goes to a file there a block at a time, from the source in memory or in its
 * file there (removed once placed): no whole signal is in memory.
 */
async function placeChannels(
  request: DiarizeSourcesRequest,
  scratch: ScratchSpace | null,
): Promise<Float32Array[] | ScratchSamples[]> {
  const { sources, lengthMs } = request;
  const letGo = (i: number): void => {
    release(sources[i]!.samples);
    sources[i] = { ...sources[i]!, samples: new Float32Array(0) };
  };
  if (!scratch) {
    if (sources.some((s) => s.file)) throw new Error('the decoded sources are in files this worker cannot open');
    return sources.map((s, i) => {
      const channel = toReferenceTimeline(s.samples, s.sampleRate, s.offsetMs, s.driftPpm, lengthMs);
      letGo(i);
      return channel;
    });
  }
  const files: ScratchSamples[] = [];
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    const channel = await scratch.samples(`channel-${i}.f32`);
    files.push(channel);
    const source = s.file ? await scratch.samples(s.file.name) : s.samples;
    placeOnReference(source, s.sampleRate, s.offsetMs, s.driftPpm, lengthMs, (_, block) => channel.append(block));
    if (source instanceof Float32Array) letGo(i);
    else await scratch.drop(source);
  }
  return files;
}

const api: AnalysisWorkerApi = {
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
    return tracked(requestId, async (signal): Promise<DiarizeSourcesOutcome> => {
      const t0 = performance.now();
      const { sources, lengthMs, scratch: folder, keepInMemory, ...rest } = request;
      // Per-mic: the channels wait on disk while the VAD runs (an hour of three mics is 0.7 GB),
      // where the private file system has room; a single mix stays in memory. Sources decoded
      // into a scratch folder are replaced there by their channels, one by one.
      const channelBytes = 4 * Math.ceil((lengthMs * request.sampleRate) / 1000);
      const scratch = folder
        ? await ScratchSpace.create(0, folder)
        : sources.length > 1 && !keepInMemory
          ? await ScratchSpace.create(sources.length * channelBytes * 1.2)
          : null;
      let inMemory: Float32Array[] = [];
      let kept = false;
      try {
        const placed = await placeChannels(request, scratch);
        const stored = scratch ? (placed as ScratchSamples[]) : null;
        if (!stored) inMemory = placed as Float32Array[];
        const { audio, quietRanges } = stored
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
        const outcome = await diarizeChannels(
          { ...rest, channels: stored ?? inMemory },
          quietRanges,
          signal,
          readBack,
          scratch,
        );
        if (!outcome.ok) return outcome;
        kept = scratch !== null;
        // The WAV stays in the scratch folder until the page has stored it (dropScratch).
        return { ...outcome, audio, prepareMs, ...(scratch ? { scratch: scratch.name } : {}) };
      } finally {
        // An hour of channels is 0.7 GB: freed now, not left for the render to run beside.
        for (const channel of inMemory) release(channel);
        if (scratch && !kept) await scratch.remove();
      }
    });
  },

  async dropScratch(name) {
    await removeScratch(name);
  },

  abort(requestId) {
    running.get(requestId)?.abort(new DOMException('the stage was cancelled', 'AbortError'));
  },
};

expose(api);
