/**
 * The vision worker's protocol (workers/vision.worker.ts), used through comlink `Remote<VisionWorkerApi>`.
 *
 * @module
 */
import type { CameraMapInput } from '../analysis/camera/camera-map.ts';
import type { MotionSamples } from '../analysis/camera/features.ts';
import type { CameraMeasures } from '../analysis/camera/measures.ts';
import type { CameraFaces } from '../analysis/faces/face-tracks.ts';
import { BLAZEFACE_MODEL_FILE } from '../models/blazeface.ts';
import type { ExecutionProviderName } from '../models/ort-runtime.ts';
import type { CameraMap } from '../contract/types.ts';
import type { FrameSamplingOptions, VideoInput } from './frame-sampler.ts';

/**
 * The models the vision worker loads, and where onnxruntime-web's wasm is, as the host app
 * supplies them: the engine's `StageAssets` (src/pipeline/stages/context.ts) extends this, so
 * hosts see one flat list, and the engine runner resolves every field that
 * {@link VISION_ASSET_FIELDS} calls a URL and hands the set to the worker whole. A new host model
 * of the camera map is a field here and a line there; `FaceModels.load` (face-models.ts) loads it.
 */
export interface VisionAssets {
  /**
   * The BlazeFace model, e.g. `https://host/models/face_detection_front_128x128_barracuda.onnx`;
   * null: cameras are mapped by motion in their thirds only.
   */
  faceModelUrl: string | null;
  /** onnxruntime-web's wasm folder, e.g. `https://host/wasm/ort/` (the analysis worker's VAD uses it too). */
  ortWasmPath: string;
  /**
   * Optional, supplied by the host app: an active-speaker model (LR-ASD's ONNX, or one with its
   * inputs `audio` `[1, 4T, 13]`, `video` `[1, T, 112, 112]` and output `score` `[T]`) that
   * judges, for the camera map, whether each face found is speaking the sound its camera hears
   * (instead of how much its mouth moves), scored on each face's crops over each run (onnxruntime-web
   * wasm, one thread). Needs `faceModelUrl`. A model that cannot be used is a warning on the
   * job, and mouth motion judges instead.
   */
  activeSpeakerModelUrl?: string;
  /**
   * The page's asset cache (src/models/asset-cache.ts), named by the engine runner: the workers
   * fetch each model and wasm once per page through it. Absent: each worker fetches its own.
   */
  assetCache?: string;
}

/**
 * Each field of {@link VisionAssets}, and how the engine runner treats it: a `url` the host app
 * gives (or else its `default`) is made absolute against the page, and a null where a default
 * is stays null (the host turned it off); an `engine` field is the runner's own, never the
 * host's. The compiler insists on a line for every field.
 */
export const VISION_ASSET_FIELDS: {
  readonly [Field in keyof Required<VisionAssets>]: { kind: 'url'; default?: string } | { kind: 'engine' };
} = {
  faceModelUrl: { kind: 'url', default: `/models/${BLAZEFACE_MODEL_FILE}` },
  ortWasmPath: { kind: 'url', default: '/wasm/ort/' },
  activeSpeakerModelUrl: { kind: 'url' },
  assetCache: { kind: 'engine' },
};

/**
 * The vision assets a host app gave, every URL made absolute against `pageUrl` as
 * {@link VISION_ASSET_FIELDS} says, without naming one: the engine runner's resolution, so a host
 * model added to {@link VisionAssets} comes along with the runner unopened. Fields the table
 * calls `engine` are left out (the runner sets them).
 *
 * @example
 * resolveVisionAssets({ activeSpeakerModelUrl: '/host-models/lr-asd.onnx' }, 'https://app.example/editor/');
 * // { faceModelUrl: 'https://app.example/models/face_detection_front_128x128_barracuda.onnx',
 * //   ortWasmPath: 'https://app.example/wasm/ort/', activeSpeakerModelUrl: 'https://app.example/host-models/lr-asd.onnx' }
 */
export function resolveVisionAssets(given: Partial<VisionAssets>, pageUrl: string): VisionAssets {
  const resolved: Partial<Record<keyof VisionAssets, string | null>> = {};
  for (const field of Object.keys(VISION_ASSET_FIELDS) as Array<keyof VisionAssets>) {
    const how = VISION_ASSET_FIELDS[field];
    if (how.kind !== 'url') continue;
    const value = given[field];
    if (value === null && how.default !== undefined) resolved[field] = null;
    else if (value) resolved[field] = new URL(value, pageUrl).href;
    else if (how.default !== undefined) resolved[field] = new URL(how.default, pageUrl).href;
  }
  // Every field without a default is optional, and every one with a default is set: a VisionAssets.
  return resolved as VisionAssets;
}

/**
 * The vision assets of `assets` (say a `StageAssets`, which holds more), and only those: what
 * the vision worker is handed.
 */
export function visionAssetsOf(assets: VisionAssets): VisionAssets {
  const picked: Partial<Record<keyof VisionAssets, unknown>> = {};
  for (const field of Object.keys(VISION_ASSET_FIELDS) as Array<keyof VisionAssets>)
    if (assets[field] !== undefined) picked[field] = assets[field];
  return picked as VisionAssets;
}

/** Sampling options that can cross the worker boundary (no signal, no callback). */
export type VisionSamplingOptions = Omit<FrameSamplingOptions, 'signal' | 'onProgress' | 'faces'> & {
  /**
   * Look for faces too, with these models (absolute URLs; `FaceModels.load` loads them).
   * `executionProvider` (default `auto`: WebGPU on a hardware adapter, else wasm) and
   * `allowFallbackAdapter` (a software WebGPU adapter such as SwiftShader; tests) pick where
   * BlazeFace runs.
   */
  faces?: VisionAssets & {
    executionProvider?: 'auto' | ExecutionProviderName;
    allowFallbackAdapter?: boolean;
  };
};

/**
 * What a camera's result says of the models it was sampled with (`FaceModels.load` writes them,
 * `cameraMotion` passes them on): where they ran, and why one could not be loaded. The mapping
 * stage turns the reasons into the job's warnings.
 */
export interface FaceModelNotes {
  /** Why faces were not looked for (the model could not be loaded), when asked for. */
  facesError?: string;
  /** Where BlazeFace ran, when it did. */
  faceProvider?: ExecutionProviderName;
  /** The active-speaker model could not be loaded (its URL and why): a warning on the job. */
  asdError?: string;
  /**
   * Why this camera's faces are judged by mouth motion although an active-speaker model was
   * asked for: the model could not be loaded, the camera has no sound, or scoring failed.
   */
  asdFallback?: string;
}

/**
 * Motion of one camera plus how much was decoded to get it: its measurements for the camera map
 * (`CameraMeasures`, in the camera's own time; `measuresToReference` puts them on the reference
 * timeline), figures for the logs, and what it says of its models ({@link FaceModelNotes}).
 */
export interface CameraMotion extends CameraMeasures, FaceModelNotes {
  /** Motion series in the camera's own time (ms). */
  samples: MotionSamples;
  /** The camera's faces (camera time), or null when faces were not looked for or could not be. */
  faces: CameraFaces | null;
  frames: number;
  runs: number;
  durationS: number;
  /** Decode and feature time in the worker, ms. */
  elapsedMs: number;
  lumaPath: 'y-plane' | 'canvas' | 'none';
  /** Tiles run through the face detector, and the time it took (ms). */
  faceDetections: number;
  faceDetectMs: number;
  /** With an active-speaker model: the runs it scored, and the time that took with decoding the sound (ms). */
  asdRuns?: number;
  asdMs?: number;
}

/** What the vision worker exposes. */
export interface VisionWorkerApi {
  /**
   * Samples frames of one camera and returns its motion features. `onProgress` is a comlink
   * `proxy` callback; cancel with {@link VisionWorkerApi.cancel} and the same `jobKey`.
   */
  cameraMotion(
    source: VideoInput,
    options: VisionSamplingOptions & { jobKey?: string },
    onProgress?: (done: number) => void,
  ): Promise<CameraMotion>;
  /** Aborts a running {@link VisionWorkerApi.cameraMotion} with this key. */
  cancel(jobKey: string): void;
  /** `computeCameraMap` off the calling thread (seconds of work for hours of footage): the mapping stage's scoring. */
  cameraMap(input: CameraMapInput): Promise<CameraMap>;
}

/** {@link CameraMotion} with plain arrays, for hops that do not keep typed arrays (e.g. Playwright's `page.evaluate`). */
export interface CameraMotionArrays {
  t: number[];
  whole: number[];
  left: number[];
  middle: number[];
  right: number[];
  sceneCut: number[];
  frames: number;
  runs: number;
  durationS: number;
  elapsedMs: number;
  lumaPath: 'y-plane' | 'canvas' | 'none';
  /** How many times the progress callback ran. */
  progressCalls: number;
  /** The faces found (positions only), when asked for. */
  faces: {
    runs: number;
    unsteadyRuns: number;
    tracks: Array<{ cx: number; cy: number; w: number; presence: number; samples: number }>;
  } | null;
  faceDetections: number;
  faceDetectMs: number;
  facesError?: string;
  faceProvider?: ExecutionProviderName;
  /** Per track, its activity samples (for comparing two paths). */
  activity?: number[][];
}
