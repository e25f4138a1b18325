/**
 * Silero VAD as the analysis worker loads it: once per worker, on WebGPU when the worker sees a
 * hardware adapter, else (or if that fails) on wasm. The VAD lanes get the model's bytes, and
 * single-mix detection's host models run in the same onnxruntime build.
 *
 * @module
 */
import { fetchAssetOnce } from '../models/asset-cache.ts';
import {
  pickExecutionProvider,
  type ExecutionProviderName,
  type GpuLike,
  type OrtModule,
} from '../models/ort-runtime.ts';
import { startSilero } from '../models/silero-loader.ts';
import type { SileroVad } from '../models/silero-vad.ts';

/**
 * Silero, the onnxruntime-web build it was loaded with (`onnxruntime-web/wasm`, or the JSEP
 * build when VAD runs on WebGPU; the host models use the same build) and the model file (for
 * the VAD lanes).
 */
export interface LoadedVad {
  model: SileroVad;
  runtime: OrtModule;
  bytes: Uint8Array;
}

/** Where the model and onnxruntime's wasm are served (a diarize request's fields). */
export interface VadAssets {
  modelUrl: string;
  ortWasmPath: string;
  /** The page's asset cache (src/models/asset-cache.ts): each file fetched once per page. */
  assetCache?: string;
}

/**
 * The worker's Silero, loaded on the first {@link VadModel.load}; a failed load is forgotten,
 * so the next call tries again.
 */
export class VadModel {
  private loading: Promise<LoadedVad> | undefined;

  /** The loaded model (the assets of the first successful call are kept). */
  load(assets: VadAssets): Promise<LoadedVad> {
    this.loading ??= loadVad(assets).catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }
}

/** Loads Silero on WebGPU when the worker sees a hardware adapter, else (or if that fails) on wasm. */
async function loadVad({ modelUrl, ortWasmPath, assetCache }: VadAssets): Promise<LoadedVad> {
  const bytes = new Uint8Array(await fetchAssetOnce(modelUrl, 'the VAD model', assetCache));
  // Only the chosen build is imported: the wasm path never downloads the JSEP bundle.
  const start = async (executionProvider: ExecutionProviderName): Promise<LoadedVad> => {
    return { ...(await startSilero(executionProvider, bytes, ortWasmPath, assetCache)), bytes };
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
}
