/**
 * The engine's analysis worker: exposes {@link AnalysisWorkerApi} with comlink. It lives next to
 * the stages that use it (not in workers/) because it is part of the engine runner.
 *
 * @module
 */
import { expose } from 'comlink';
import { diarizeMix, type MixOptions } from '../../analysis/diarize/mix.ts';
import { diarizePerMic } from '../../analysis/diarize/per-mic.ts';
import type { DiarizationResult } from '../../analysis/diarize/result.ts';
import { envelopeDb, findQuietRanges } from '../../analysis/energy.ts';
import { alignSources, SyncError } from '../../analysis/sync.ts';
import { loadOrt } from '../../models/ort-loader.ts';
import { configureOrtWasm, pickExecutionProvider, type ExecutionProviderName, type GpuLike, type OrtModule } from '../../models/ort-runtime.ts';
import { SileroVad } from '../../models/silero-vad.ts';
import { HostModelError, HostModelSlots } from './host-models.ts';
import type { AnalysisWorkerApi, DiarizeOutcome, DiarizeRequest, HostModelSlot, HostModelUse } from './protocol.ts';

const running = new Map<string, AbortController>();
/**
 * Silero and the onnxruntime-web build it was loaded with (`onnxruntime-web/wasm`, or the JSEP
 * build when VAD runs on WebGPU); the host models use the same build.
 */
let vad: Promise<{ model: SileroVad; runtime: OrtModule }> | undefined;

/** Loads Silero on WebGPU when the worker sees a hardware adapter, else (or if that fails) on wasm. */
function loadVad(request: DiarizeRequest): Promise<{ model: SileroVad; runtime: OrtModule }> {
  vad ??= (async () => {
    const response = await fetch(request.modelUrl);
    if (!response.ok) throw new Error(`VAD model ${request.modelUrl} answered ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    // Only the chosen build is imported: the wasm path never downloads the JSEP bundle.
    const start = async (executionProvider: ExecutionProviderName): Promise<{ model: SileroVad; runtime: OrtModule }> => {
      const runtime = await loadOrt(executionProvider);
      // One thread: the engine shares the machine with the page and the media worker.
      configureOrtWasm(runtime, request.ortWasmPath, 1);
      return { model: await SileroVad.create(runtime, bytes, { executionProvider }), runtime };
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
): Promise<{ result: DiarizationResult; hostModels: Record<HostModelSlot, HostModelUse> }> {
  if (request.channels.length > 1) {
    return { result: diarizePerMic(request.channels, request.sampleRate, probs), hostModels: HostModelSlots.skippedPerMic(request) };
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
  return { result: diarizeMix(mix, request.sampleRate, probs[0]!, options), hostModels: host.uses };
}

function mixDown(channels: readonly Float32Array[]): Float32Array {
  const length = Math.max(0, ...channels.map((c) => c.length));
  const mix = new Float32Array(length);
  for (const channel of channels) for (let i = 0; i < channel.length; i++) mix[i]! += channel[i]! / channels.length;
  return mix;
}

const api: AnalysisWorkerApi = {
  async align(signals, referenceId) {
    try {
      return { ok: true, alignments: alignSources(signals, referenceId === undefined ? {} : { referenceId }) };
    } catch (error) {
      if (error instanceof SyncError) return { ok: false, failures: error.failures };
      throw error;
    }
  },

  async diarize(request, requestId): Promise<DiarizeOutcome> {
    const controller = new AbortController();
    running.set(requestId, controller);
    const t0 = performance.now();
    try {
      const { model, runtime } = await loadVad(request);
      const loadMs = performance.now() - t0;
      const probs: Float32Array[] = [];
      for (const channel of request.channels) probs.push(await model.speechProbabilities(channel, controller.signal));
      controller.signal.throwIfAborted();
      const vadMs = performance.now() - t0;
      let detected;
      try {
        detected = await detectSpeakers(runtime, request, probs, controller.signal);
      } catch (error) {
        if (error instanceof HostModelError) return { ok: false, modelFailure: error.failure };
        throw error;
      }
      const { result, hostModels } = detected;
      const mix = request.channels.length > 1 ? mixDown(request.channels) : request.channels[0]!;
      const quietRanges = findQuietRanges(envelopeDb(mix, request.sampleRate));
      return { ok: true, result, quietRanges, vadProvider: model.executionProvider, vadLoadMs: loadMs, vadMs, elapsedMs: performance.now() - t0, hostModels };
    } finally {
      running.delete(requestId);
    }
  },

  abort(requestId) {
    running.get(requestId)?.abort(new DOMException('the stage was cancelled', 'AbortError'));
  },
};

expose(api);
