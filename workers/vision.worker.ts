/**
 * The vision worker: samples camera frames with WebCodecs and returns motion features and faces
 * (BlazeFace on onnxruntime-web: WebGPU on a hardware adapter, else wasm), with the optional
 * active-speaker model (LR-ASD, wasm) scoring each face against the camera's own sound, and
 * scores them against the speech turns (the camera map).
 * Protocol: `VisionWorkerApi` (src/vision/protocol.ts).
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import { asdMfcc } from '../src/analysis/faces/asd-features.ts';
import { BlazeFace } from '../src/models/blazeface.ts';
import { LrAsd } from '../src/models/lr-asd.ts';
import { loadOrt } from '../src/models/ort-loader.ts';
import {
  configureOrtWasm,
  pickExecutionProvider,
  type ExecutionProviderName,
  type GpuLike,
} from '../src/models/ort-runtime.ts';
import { fetchServed } from '../src/models/served-asset.ts';
import { cameraMotion } from '../src/vision/camera-motion.ts';
import type { ActiveSpeakerScorer, FaceDetector } from '../src/vision/face-probe.ts';
import type { VisionSamplingOptions, VisionWorkerApi } from '../src/vision/protocol.ts';

const running = new Map<string, AbortController>();
let faces: { key: string; model: Promise<BlazeFace> } | undefined;
let activeSpeaker: { url: string; model: Promise<LrAsd> } | undefined;

type FaceAssets = NonNullable<VisionSamplingOptions['faces']>;

/**
 * BlazeFace from `modelUrl`, loaded once per model and provider; by default on WebGPU when a
 * hardware adapter is there, else (or if that fails) on wasm.
 */
function loadFaces({
  modelUrl,
  ortWasmPath,
  executionProvider = 'auto',
  allowFallbackAdapter,
}: FaceAssets): Promise<BlazeFace> {
  const key = `${modelUrl} ${executionProvider} ${allowFallbackAdapter === true}`;
  if (faces?.key === key) return faces.model;
  const model = (async () => {
    const bytes = new Uint8Array(await (await fetchServed(modelUrl, 'the face model')).arrayBuffer());
    const start = async (executionProvider: ExecutionProviderName): Promise<BlazeFace> => {
      const wasm = `ort-wasm-simd-threaded${executionProvider === 'webgpu' ? '.jsep' : ''}.wasm`;
      await fetchServed(new URL(wasm, ortWasmPath).href, "onnxruntime-web's wasm", { method: 'HEAD' });
      const runtime = await loadOrt(executionProvider);
      configureOrtWasm(runtime, ortWasmPath, 1);
      return BlazeFace.create(runtime, bytes, { executionProvider });
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
    if (faces?.model === model) faces = undefined;
  });
  faces = { key, model };
  return model;
}

/**
 * The active-speaker model from `modelUrl`, loaded once per worker and URL, on wasm (one
 * thread): its numbers on WebGPU have not been checked against wasm's (the Silero VAD story,
 * src/models/ort-loader.ts).
 */
function loadActiveSpeaker(modelUrl: string, ortWasmPath: string): Promise<LrAsd> {
  if (activeSpeaker?.url === modelUrl) return activeSpeaker.model;
  const previous = activeSpeaker?.model;
  const model = (async () => {
    void previous?.then((m) => m.dispose()).catch(() => undefined);
    const bytes = new Uint8Array(await (await fetchServed(modelUrl, 'the active-speaker model')).arrayBuffer());
    await fetchServed(new URL('ort-wasm-simd-threaded.wasm', ortWasmPath).href, "onnxruntime-web's wasm", {
      method: 'HEAD',
    });
    const runtime = await loadOrt('wasm');
    configureOrtWasm(runtime, ortWasmPath, 1);
    return LrAsd.create(runtime, bytes, { executionProvider: 'wasm', label: `the active-speaker model ${modelUrl}` });
  })();
  model.catch(() => {
    if (activeSpeaker?.model === model) activeSpeaker = undefined;
  });
  activeSpeaker = { url: modelUrl, model };
  return model;
}

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
          const model = await loadFaces(faceAssets);
          faceProvider = model.executionProvider;
          detector = (rgb) => model.detect(rgb);
        } catch (error) {
          // No faces is not a failure: the camera map falls back to motion in the thirds.
          facesError = (error as Error).message;
        }
      }
      if (detector && faceAssets?.activeSpeakerModelUrl) {
        try {
          const model = await loadActiveSpeaker(faceAssets.activeSpeakerModelUrl, faceAssets.ortWasmPath);
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
