/**
 * The vision worker: samples camera frames with WebCodecs and returns motion features and faces
 * (BlazeFace on onnxruntime-web: WebGPU on a hardware adapter, else wasm), with the optional
 * active-speaker model (LR-ASD, wasm) scoring each face against the camera's own sound, and
 * scores them against the speech turns (the camera map). The models are loaded and kept by
 * `FaceModels` (src/vision/face-models.ts). Protocol: `VisionWorkerApi` (src/vision/protocol.ts).
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import { asdMfcc } from '../src/analysis/faces/asd-features.ts';
import type { ExecutionProviderName } from '../src/models/ort-runtime.ts';
import { cameraMotion } from '../src/vision/camera-motion.ts';
import type { ActiveSpeakerScorer, FaceDetector } from '../src/vision/face-probe.ts';
import { FaceModels } from '../src/vision/face-models.ts';
import { usePromptAudioDecoder } from '../src/media/prompt-audio-decoder.ts';
import type { VisionWorkerApi } from '../src/vision/protocol.ts';

// WebKit's AudioDecoder holds its output until flush(): decode audio through the decoder that copes.
usePromptAudioDecoder();

const running = new Map<string, AbortController>();
const models = new FaceModels();

const api: VisionWorkerApi = {
  async cameraMotion(source, options, onProgress) {
    const { jobKey, faces: faceAssets, ...sampling } = options;
    const abort = new AbortController();
    if (jobKey) running.set(jobKey, abort);
    try {
      let detector: FaceDetector | undefined;
      let facesError: string | undefined;
      let faceProvider: ExecutionProviderName | undefined;
      let scorer: ActiveSpeakerScorer | undefined;
      let asdError: string | undefined;
      if (faceAssets) {
        try {
          const model = await models.faces(faceAssets);
          faceProvider = model.executionProvider;
          detector = (rgb) => model.detect(rgb);
        } catch (error) {
          // No faces is not a failure: the camera map falls back to motion in the thirds.
          facesError = (error as Error).message;
        }
      }
      if (detector && faceAssets?.activeSpeakerModelUrl) {
        try {
          const model = await models.activeSpeakerModel(
            faceAssets.activeSpeakerModelUrl,
            faceAssets.ortWasmPath,
            faceAssets.assetCache,
          );
          scorer = (crops, sound) => model.scoreTrack(asdMfcc(sound), crops, { signal: abort.signal });
        } catch (error) {
          // Mouth motion judges the faces instead; the job gets a warning (the mapping stage).
          asdError = (error as Error).message;
        }
      }
      const result = await cameraMotion(
        source,
        {
          ...sampling,
          signal: abort.signal,
          ...(onProgress ? { onProgress: (done: number) => void onProgress(done) } : {}),
        },
        detector,
        scorer,
      );
      const s = result.samples;
      const asd = asdError
        ? { asdError, asdFallback: `the active-speaker model could not be loaded (${asdError})` }
        : {};
      return transfer(
        { ...result, ...(facesError ? { facesError } : {}), ...(faceProvider ? { faceProvider } : {}), ...asd },
        [
          s.t.buffer,
          s.whole.buffer,
          s.left.buffer,
          s.middle.buffer,
          s.right.buffer,
          s.sceneCut.buffer,
        ] as ArrayBuffer[],
      );
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
