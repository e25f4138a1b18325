/**
 * The vision worker: samples camera frames with WebCodecs and returns motion features, and
 * scores them against the speech turns (the camera map).
 * Protocol: `VisionWorkerApi` (src/vision/protocol.ts).
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import { cameraMotion } from '../src/vision/camera-motion.ts';
import type { VisionWorkerApi } from '../src/vision/protocol.ts';

const running = new Map<string, AbortController>();

const api: VisionWorkerApi = {
  async cameraMotion(source, options, onProgress) {
    const { jobKey, ...sampling } = options;
    const abort = new AbortController();
    if (jobKey) running.set(jobKey, abort);
    try {
      const result = await cameraMotion(source, {
        ...sampling,
        signal: abort.signal,
        ...(onProgress ? { onProgress: (done: number) => void onProgress(done) } : {}),
      });
      const s = result.samples;
      return transfer(result, [
        s.t.buffer,
        s.whole.buffer,
        s.left.buffer,
        s.middle.buffer,
        s.right.buffer,
        s.sceneCut.buffer,
      ] as ArrayBuffer[]);
    } finally {
      if (jobKey) running.delete(jobKey);
    }
  },
  async cameraMap(input) {
    return computeCameraMap(input);
  },
  cancel(jobKey) {
    running.get(jobKey)?.abort(new DOMException(`camera motion ${jobKey} cancelled`, 'AbortError'));
  },
};

expose(api);
