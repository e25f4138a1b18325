/**
 * The vision worker's models, each loaded once and kept between cameras: BlazeFace (by default
 * on WebGPU when a hardware adapter is there, else or if that fails on wasm) and the optional
 * active-speaker model (LR-ASD, on wasm). A load that failed is forgotten, so the next camera
 * tries again. {@link FaceModels.load} takes a sampling request's assets whole and gives back
 * the loaded set, which the worker hands to `cameraMotion` whole: a new host model is loaded
 * here and used in face-probe.ts, and the worker is not opened.
 *
 * @module
 */
import { asdMfcc } from '../analysis/faces/asd-features.ts';
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
import type { FaceDetector, FaceProbeModels } from './face-probe.ts';
import type { FaceModelNotes, VisionSamplingOptions } from './protocol.ts';

/** Where the face models are served and how BlazeFace may run (a sampling request's `faces`). */
export type FaceAssets = NonNullable<VisionSamplingOptions['faces']>;

/**
 * The models one camera is sampled with, as loaded: BlazeFace's detector, the host models the
 * face probe runs on each face run, and what the camera's result says of them.
 */
export interface LoadedFaceModels {
  /** BlazeFace; absent when faces are off or it could not be loaded. */
  detector?: FaceDetector;
  /** The host models the face probe runs on each face of each run (the probe gets them whole). */
  probe: FaceProbeModels;
  /** Where the models run and why one could not be loaded: onto the camera's result as they are. */
  notes: FaceModelNotes;
}

/** The models of one vision worker. */
export class FaceModels {
  private face: { key: string; model: Promise<BlazeFace> } | undefined;
  private activeSpeaker: { url: string; model: Promise<LrAsd> } | undefined;

  /**
   * The models `assets` asks for, loaded (or kept from an earlier camera): none without assets
   * or a face model; the active-speaker model only once BlazeFace loaded. A model that cannot be
   * loaded is not a failure: the set says why, and the camera is measured without it (no faces:
   * motion in the thirds; no active-speaker model: mouth motion). Scoring stops with `signal`.
   */
  async load(assets: FaceAssets | undefined, signal: AbortSignal): Promise<LoadedFaceModels> {
    const loaded: LoadedFaceModels = { probe: {}, notes: {} };
    if (!assets?.faceModelUrl) return loaded;
    try {
      const model = await this.faces({ ...assets, faceModelUrl: assets.faceModelUrl });
      loaded.notes.faceProvider = model.executionProvider;
      loaded.detector = (rgb) => model.detect(rgb);
    } catch (error) {
      loaded.notes.facesError = (error as Error).message;
      return loaded;
    }
    if (assets.activeSpeakerModelUrl) {
      try {
        const model = await this.activeSpeakerModel(
          assets.activeSpeakerModelUrl,
          assets.ortWasmPath,
          assets.assetCache,
        );
        loaded.probe.activeSpeaker = (crops, sound) => model.scoreTrack(asdMfcc(sound), crops, { signal });
      } catch (error) {
        const message = (error as Error).message;
        loaded.notes.asdError = message;
        loaded.notes.asdFallback = `the active-speaker model could not be loaded (${message})`;
      }
    }
    return loaded;
  }

  /**
   * BlazeFace from `faceModelUrl`, loaded once per model and provider; by default on WebGPU when
   * a hardware adapter is there, else (or if that fails) on wasm.
   */
  private faces({
    faceModelUrl,
    ortWasmPath,
    executionProvider = 'auto',
    allowFallbackAdapter,
    assetCache,
  }: FaceAssets & { faceModelUrl: string }): Promise<BlazeFace> {
    const key = `${faceModelUrl} ${executionProvider} ${allowFallbackAdapter === true}`;
    if (this.face?.key === key) return this.face.model;
    const model = (async () => {
      const bytes = new Uint8Array(await fetchAssetOnce(faceModelUrl, 'the face model', assetCache));
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
  private activeSpeakerModel(modelUrl: string, ortWasmPath: string, assetCache?: string): Promise<LrAsd> {
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
