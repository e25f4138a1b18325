/**
 * The vision worker's protocol (workers/vision.worker.ts), used through comlink `Remote<VisionWorkerApi>`.
 *
 * @module
 */
import type { CameraMapInput } from '../analysis/camera/camera-map.ts';
import type { MotionSamples } from '../analysis/camera/features.ts';
import type { CameraFaces } from '../analysis/faces/face-tracks.ts';
import type { ExecutionProviderName } from '../models/ort-runtime.ts';
import type { CameraMap } from '../contract/types.ts';
import type { FrameSamplingOptions, VideoInput } from './frame-sampler.ts';

/** Sampling options that can cross the worker boundary (no signal, no callback). */
export type VisionSamplingOptions = Omit<FrameSamplingOptions, 'signal' | 'onProgress' | 'faces'> & {
  /**
   * Look for faces too, with this BlazeFace model and onnxruntime-web's wasm folder (absolute
   * URLs). `executionProvider` (default `auto`: WebGPU on a hardware adapter, else wasm) and
   * `allowFallbackAdapter` (a software WebGPU adapter such as SwiftShader; tests) pick where it runs.
   */
  faces?: {
    modelUrl: string;
    ortWasmPath: string;
    executionProvider?: 'auto' | ExecutionProviderName;
    allowFallbackAdapter?: boolean;
    /**
     * The optional active-speaker model (LR-ASD's ONNX or one with its inputs and output;
     * absolute URL): each face of each run is scored on its crops and the camera's own sound
     * (onnxruntime-web wasm, one thread), and the faces' speaking is judged by its logits
     * instead of mouth motion wherever it scored them all.
     */
    activeSpeakerModelUrl?: string;
    /**
     * The page's asset cache (src/models/asset-cache.ts): the models and the wasm are fetched
     * once per page, whatever the number of vision workers. Absent: each worker fetches its own.
     */
    assetCache?: string;
  };
};

/** Motion of one camera plus how much was decoded to get it. */
export interface CameraMotion {
  /** Motion series in the camera's own time (ms); map to reference time with `samplesToReference`. */
  samples: MotionSamples;
  frames: number;
  runs: number;
  durationS: number;
  /** Decode and feature time in the worker, ms. */
  elapsedMs: number;
  lumaPath: 'y-plane' | 'canvas' | 'none';
  /** The camera's faces (camera time), or null when faces were not looked for or could not be. */
  faces: CameraFaces | null;
  /** Tiles run through the face detector, and the time it took (ms). */
  faceDetections: number;
  faceDetectMs: number;
  /** Why faces were not looked for (the model could not be loaded), when asked for. */
  facesError?: string;
  /** Where BlazeFace ran, when it did. */
  faceProvider?: ExecutionProviderName;
  /** With an active-speaker model: the runs it scored, and the time that took with decoding the sound (ms). */
  asdRuns?: number;
  asdMs?: number;
  /**
   * Why this camera's faces are judged by mouth motion although an active-speaker model was
   * asked for: the model could not be loaded, the camera has no sound, or scoring failed.
   */
  asdFallback?: string;
  /** The active-speaker model could not be loaded (its URL and why): a warning on the job. */
  asdError?: string;
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
