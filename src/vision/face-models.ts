/**
 * The vision worker's models, each loaded once and kept between cameras: BlazeFace (by default
 * on WebGPU when a hardware adapter is there, else or if that fails on wasm) and the optional
 * active-speaker model (LR-ASD, on wasm). A load that failed is forgotten, so the next camera
 * tries again.
 *
 * @module
 */
import { BlazeFace } from '../models/blazeface.ts';
import { LrAsd } from '../models/lr-asd.ts';
import { prepareOrt } from '../models/ort-loader.ts';
import {
  ortWasmInstantiated,
  pickExecutionProvider,
  type ExecutionProviderName,
  type GpuLike,
} from '../models/ort-runtime.ts';
import { fetchAssetOnce } from '../models/asset-cache.ts';
import type { VisionSamplingOptions } from './protocol.ts';

/** Where the face model is served and how it may run (a sampling request's `faces`). */
export type FaceAssets = NonNullable<VisionSamplingOptions['faces']>;

/** The models of one vision worker. */
export class FaceModels {
  private face: { key: string; model: Promise<BlazeFace> } | undefined;
  private activeSpeaker: { url: string; model: Promise<LrAsd> } | undefined;

  /**
   * BlazeFace from `modelUrl`, loaded once per model and provider; by default on WebGPU when a
   * hardware adapter is there, else (or if that fails) on wasm.
   */
  faces({
    modelUrl,
    ortWasmPath,
    executionProvider = 'auto',
    allowFallbackAdapter,
    assetCache,
  }: FaceAssets): Promise<BlazeFace> {
    const key = `${modelUrl} ${executionProvider} ${allowFallbackAdapter === true}`;
    if (this.face?.key === key) return this.face.model;
    const model = (async () => {
      const bytes = new Uint8Array(await fetchAssetOnce(modelUrl, 'the face model', assetCache));
      const start = async (executionProvider: ExecutionProviderName): Promise<BlazeFace> => {
        const runtime = await prepareOrt(executionProvider, ortWasmPath, assetCache);
        const model = await BlazeFace.create(runtime, bytes, { executionProvider });
        ortWasmInstantiated(runtime);
        return model;
      };
      if (executionProvider !== 'auto') return start(executionProvider);
      const gpu = (navigator as WorkerNavigator & { gpu?: GpuLike }).gpu;
      if ((await pickExecutionProvider(gpu, { allowFallbackAdapter: allowFallbackAdapter === true })) === 'webgpu') {
        try {
          return await start('webgpu');
        } catch (error) {
          console.warn('BlazeFace on WebGPU failed, using wasm:', error);
        }
      }
      return start('wasm');
    })();
    model.catch(() => {
      if (this.face?.model === model) this.face = undefined;
    });
    this.face = { key, model };
    return model;
  }

  /**
   * The active-speaker model from `modelUrl`, loaded once per worker and URL, on wasm (one
   * thread): its numbers on WebGPU have not been checked against wasm's (the Silero VAD story,
   * src/models/ort-loader.ts). The model of another URL loaded before is disposed of.
   */
  activeSpeakerModel(modelUrl: string, ortWasmPath: string, assetCache?: string): Promise<LrAsd> {
    if (this.activeSpeaker?.url === modelUrl) return this.activeSpeaker.model;
    const previous = this.activeSpeaker?.model;
    const model = (async () => {
      void previous?.then((m) => m.dispose()).catch(() => undefined);
      const bytes = new Uint8Array(await fetchAssetOnce(modelUrl, 'the active-speaker model', assetCache));
      const runtime = await prepareOrt('wasm', ortWasmPath, assetCache);
      const model = await LrAsd.create(runtime, bytes, {
        executionProvider: 'wasm',
        label: `the active-speaker model ${modelUrl}`,
      });
      ortWasmInstantiated(runtime);
      return model;
    })();
    model.catch(() => {
      if (this.activeSpeaker?.model === model) this.activeSpeaker = undefined;
    });
    this.activeSpeaker = { url: modelUrl, model };
    return model;
  }
}
