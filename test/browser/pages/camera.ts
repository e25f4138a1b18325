/**
 * Test page for the camera map's browser path: the real vision worker (WebCodecs through
 * mediabunny) samples a camera file and returns its motion features. Node-side tests call
 * `window.camera.motion(url, options)` through `page.evaluate`.
 *
 * @module
 */
import { wrap, proxy, type Remote } from 'comlink';
import type { CameraMotionArrays, VisionSamplingOptions, VisionWorkerApi } from '../../../src/vision/protocol.ts';

let worker: Worker | undefined;
let api: Remote<VisionWorkerApi> | undefined;

function vision(): Remote<VisionWorkerApi> {
  if (!api) {
    worker = new Worker(new URL('../../../workers/vision.worker.ts', import.meta.url), { type: 'module' });
    api = wrap<VisionWorkerApi>(worker);
  }
  return api;
}

async function motion(url: string, options: VisionSamplingOptions & { jobKey?: string } = {}): Promise<CameraMotionArrays> {
  let progressCalls = 0;
  const r = await vision().cameraMotion(url, options, proxy(() => void progressCalls++));
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
  };
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
    camera: { motion: typeof motion; cancel: typeof cancel; dispose: typeof dispose };
  }
}
window.camera = { motion, cancel, dispose };
document.body.dataset['ready'] = '1';
