/**
 * The engine's analysis worker: exposes {@link AnalysisWorkerApi} with comlink. It lives next to
 * the stages that use it (not in workers/) because it is part of the engine runner.
 *
 * @module
 */
import { expose } from 'comlink';
import * as ort from 'onnxruntime-web';
import { diarizeMix } from '../../analysis/diarize/mix.ts';
import { diarizePerMic } from '../../analysis/diarize/per-mic.ts';
import { envelopeDb, findQuietRanges } from '../../analysis/energy.ts';
import { alignSources, SyncError } from '../../analysis/sync.ts';
import { configureOrtWasm, type OrtModule } from '../../models/ort-runtime.ts';
import { SileroVad } from '../../models/silero-vad.ts';
import type { AnalysisWorkerApi, DiarizeRequest, DiarizeResponse } from './protocol.ts';

const running = new Map<string, AbortController>();
let vad: Promise<SileroVad> | undefined;

function loadVad(request: DiarizeRequest): Promise<SileroVad> {
  vad ??= (async () => {
    // One thread: the engine shares the machine with the page and the media worker.
    configureOrtWasm(ort as unknown as OrtModule, request.ortWasmPath, 1);
    const response = await fetch(request.modelUrl);
    if (!response.ok) throw new Error(`VAD model ${request.modelUrl} answered ${response.status}`);
    return SileroVad.create(ort as unknown as OrtModule, new Uint8Array(await response.arrayBuffer()));
  })().catch((error: unknown) => {
    vad = undefined;
    throw error;
  });
  return vad;
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

  async diarize(request, requestId): Promise<DiarizeResponse> {
    const controller = new AbortController();
    running.set(requestId, controller);
    const t0 = performance.now();
    try {
      const model = await loadVad(request);
      const loadMs = performance.now() - t0;
      const probs: Float32Array[] = [];
      for (const channel of request.channels) probs.push(await model.speechProbabilities(channel, controller.signal));
      controller.signal.throwIfAborted();
      const vadMs = performance.now() - t0;
      const result =
        request.channels.length > 1
          ? diarizePerMic(request.channels, request.sampleRate, probs)
          : diarizeMix(request.channels[0]!, request.sampleRate, probs[0]!);
      const mix = request.channels.length > 1 ? mixDown(request.channels) : request.channels[0]!;
      const quietRanges = findQuietRanges(envelopeDb(mix, request.sampleRate));
      return { result, quietRanges, vadProvider: model.executionProvider, vadLoadMs: loadMs, vadMs, elapsedMs: performance.now() - t0 };
    } finally {
      running.delete(requestId);
    }
  },

  abort(requestId) {
    running.get(requestId)?.abort(new DOMException('the stage was cancelled', 'AbortError'));
  },
};

expose(api);
