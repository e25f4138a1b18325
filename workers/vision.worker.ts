/**
 * The vision worker: samples camera frames with WebCodecs and returns motion features and faces
 * (BlazeFace on onnxruntime-web: WebGPU on a hardware adapter, else wasm), with the optional
 * active-speaker model (LR-ASD, wasm) scoring each face against the camera's own sound, and
 * scores them against the speech turns (the camera map). The models are loaded and kept by
 * `FaceModels` (src/vision/face-models.ts), which takes a request's assets whole and gives the
 * loaded set that `cameraMotion` takes whole. Protocol: `VisionWorkerApi` (src/vision/protocol.ts).
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import { cameraMotion } from '../src/vision/camera-motion.ts';
import { FaceModels } from '../src/vision/face-models.ts';
import { usePromptAudioDecoder } from '../src/media/prompt-audio-decoder.ts';
import type { VisionWorkerApi } from '../src/vision/protocol.ts';

// WebKit's AudioDecoder holds its output until flush(): decode audio through the decoder that copes.
usePromptAudioDecoder();

const running = new Map<string, AbortController>();
const models = new FaceModels();

const api: VisionWorkerApi = {
  async cameraMotion(source, options, onProgress) {
    const { jobKey, faces: assets, ...sampling } = options;
    const abort = new AbortController();
    if (jobKey) running.set(jobKey, abort);
    try {
      // A model that cannot be loaded is not a failure: the result says why (a warning on the job).
      const loaded = await models.load(assets, abort.signal);
      const result = await cameraMotion(
        source,
        {
          ...sampling,
          signal: abort.signal,
          ...(onProgress ? { onProgress: (done: number) => void onProgress(done) } : {}),
        },
        loaded,
      );
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
