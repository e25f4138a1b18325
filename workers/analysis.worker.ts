/**
 * The analysis worker: Silero VAD and diarization off the main thread, exposed with comlink
 * as {@link AnalysisWorkerApi} (src/models/analysis-protocol.ts). onnxruntime-web's wasm
 * build is loaded unless a hardware WebGPU adapter is present, then its WebGPU build.
 *
 * @module
 */
import { expose } from 'comlink';
import { diarizeMix } from '../src/analysis/diarize/mix.ts';
import { diarizePerMic } from '../src/analysis/diarize/per-mic.ts';
import type { AnalysisWorkerApi } from '../src/models/analysis-protocol.ts';
import { configureOrtWasm, pickExecutionProvider, type GpuLike, type OrtModule } from '../src/models/ort-runtime.ts';
import { PyannoteSegmentation } from '../src/models/segmentation.ts';
import { SileroVad } from '../src/models/silero-vad.ts';

let vad: SileroVad | undefined;
let segmentation: PyannoteSegmentation | undefined;
const running = new Map<string, AbortController>();

function loaded(): SileroVad {
  if (!vad) throw new Error('analysis worker: call init() before any analysis');
  return vad;
}

async function withAbort<T>(requestId: string | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  if (requestId !== undefined) running.set(requestId, controller);
  try {
    return await work(controller.signal);
  } finally {
    if (requestId !== undefined) running.delete(requestId);
  }
}

const api: AnalysisWorkerApi = {
  async init(init) {
    const gpu = (self.navigator as unknown as { gpu?: GpuLike }).gpu;
    const provider = init.preferWebGpu === false ? 'wasm' : await pickExecutionProvider(gpu);
    const ort = (provider === 'webgpu' ? await import('onnxruntime-web/webgpu') : await import('onnxruntime-web/wasm')) as unknown as OrtModule;
    configureOrtWasm(ort, init.wasmPaths, init.threads);
    await vad?.dispose();
    await segmentation?.dispose();
    vad = await SileroVad.create(ort, init.vadModel, { executionProvider: provider });
    segmentation = init.segmentationModel ? await PyannoteSegmentation.create(ort, init.segmentationModel, { executionProvider: provider }) : undefined;
    return { executionProvider: provider, segmentation: segmentation !== undefined };
  },
  speechProbabilities: (samples, requestId) => withAbort(requestId, (signal) => loaded().speechProbabilities(samples, signal)),
  diarizeMix: (samples, options = {}, requestId) =>
    withAbort(requestId, async (signal) => {
      const probs = await loaded().speechProbabilities(samples, signal);
      const overlap = segmentation ? await segmentation.overlapProbabilities(samples, signal) : undefined;
      return diarizeMix(samples, 16000, probs, overlap ? { ...options, overlap } : options);
    }),
  diarizePerMic: (channels, options = {}, requestId) =>
    withAbort(requestId, async (signal) => {
      const probs: Float32Array[] = [];
      for (const c of channels) probs.push(await loaded().speechProbabilities(c, signal));
      return diarizePerMic(channels, 16000, probs, options);
    }),
  abort(requestId) {
    running.get(requestId)?.abort();
  },
  async dispose() {
    await vad?.dispose();
    await segmentation?.dispose();
    vad = undefined;
    segmentation = undefined;
  },
};

expose(api);
