/**
 * Test page for the camera map's browser path: the real vision worker (WebCodecs through
 * mediabunny) samples a camera file and returns its motion features. Node-side tests call
 * `window.camera.motion(url, options)` through `page.evaluate`. With `withFaces`, the worker
 * also looks for faces with BlazeFace (the model and onnxruntime-web's wasm served by this origin).
 *
 * @module
 */
import { wrap, proxy, type Remote } from 'comlink';
import type { CameraMotionArrays, VisionSamplingOptions, VisionWorkerApi } from '../../../src/vision/protocol.ts';
import { computeCameraMap } from '../../../src/analysis/camera/camera-map.ts';
import { samplesToReference } from '../../../src/analysis/camera/features.ts';
import { facesToReference } from '../../../src/analysis/faces/face-tracks.ts';
import type { CameraMap, Turn } from '../../../src/contract/types.ts';

let worker: Worker | undefined;
let api: Remote<VisionWorkerApi> | undefined;

function vision(): Remote<VisionWorkerApi> {
  if (!api) {
    worker = new Worker(new URL('../../../workers/vision.worker.ts', import.meta.url), { type: 'module' });
    api = wrap<VisionWorkerApi>(worker);
  }
  return api;
}

/** The page's own BlazeFace model and onnxruntime-web wasm folder. */
const FACE_ASSETS = {
  faceModelUrl: new URL('/models/face_detection_front_128x128_barracuda.onnx', location.href).href,
  ortWasmPath: new URL('/wasm/ort/', location.href).href,
};

type PageSampling = VisionSamplingOptions & {
  /** Faces with the page's own model; `'webgpu-fallback'` runs it on a software WebGPU adapter. */
  withFaces?: boolean | 'wasm' | 'webgpu-fallback';
};

function sampling(options: PageSampling): VisionSamplingOptions {
  const { withFaces, ...rest } = options;
  if (!withFaces) return rest;
  const provider =
    withFaces === 'wasm'
      ? { executionProvider: 'wasm' as const }
      : withFaces === 'webgpu-fallback'
        ? { executionProvider: 'webgpu' as const, allowFallbackAdapter: true }
        : {};
  return { ...rest, faces: { ...FACE_ASSETS, ...provider } };
}

async function motion(url: string, options: PageSampling & { jobKey?: string } = {}): Promise<CameraMotionArrays> {
  let progressCalls = 0;
  const r = await vision().cameraMotion(
    url,
    sampling(options),
    proxy(() => void progressCalls++),
  );
  const s = r.samples;
  return {
    t: Array.from(s.t),
    whole: Array.from(s.whole),
    left: Array.from(s.left),
    middle: Array.from(s.middle),
    right: Array.from(s.right),
    sceneCut: Array.from(s.sceneCut),
    frames: r.frames,
    runs: r.runs,
    durationS: r.durationS,
    elapsedMs: r.elapsedMs,
    lumaPath: r.lumaPath,
    progressCalls,
    faces: r.faces && {
      runs: r.faces.runs,
      unsteadyRuns: r.faces.unsteadyRuns,
      tracks: r.faces.tracks.map((t) => ({ cx: t.cx, cy: t.cy, w: t.w, presence: t.presence, samples: t.t.length })),
    },
    faceDetections: r.faceDetections,
    faceDetectMs: r.faceDetectMs,
    ...(r.facesError ? { facesError: r.facesError } : {}),
    ...(r.faceProvider ? { faceProvider: r.faceProvider } : {}),
    activity: r.faces?.tracks.map((t) => Array.from(t.activity)) ?? [],
  };
}

/** Samples cameras in the worker, maps them to reference time and computes the map on the page (`computeCameraMap` is pure). */
async function map(
  cameras: Array<{ sourceId: string; url: string; offsetMs: number; driftPpm: number }>,
  turns: Turn[],
  options: PageSampling & { minSpeechMs?: number } = {},
): Promise<CameraMap> {
  const { minSpeechMs, ...rest } = options;
  const sampled = [];
  for (const c of cameras) {
    const { samples, faces } = await vision().cameraMotion(c.url, sampling(rest));
    sampled.push({
      sourceId: c.sourceId,
      samples: samplesToReference(samples, c.offsetMs, c.driftPpm),
      faces: faces && facesToReference(faces, c.offsetMs, c.driftPpm),
    });
  }
  return computeCameraMap({ cameras: sampled, turns, ...(minSpeechMs !== undefined ? { minSpeechMs } : {}) });
}

/** Cancels a run started with `options.jobKey`; the pending `motion` call then rejects. */
async function cancel(jobKey: string): Promise<void> {
  await vision().cancel(jobKey);
}

function dispose(): void {
  worker?.terminate();
  worker = undefined;
  api = undefined;
}

declare global {
  interface Window {
    camera: { motion: typeof motion; map: typeof map; cancel: typeof cancel; dispose: typeof dispose };
  }
}
window.camera = { motion, map, cancel, dispose };
document.body.dataset['ready'] = '1';
