/**
 * The VAD test page's worker (test/browser/pages/vad.ts): loads Silero VAD with the engine's
 * own code (pickExecutionProvider → loadOrt → SileroVad) on the provider asked for, in a
 * worker as the engine's analysis worker does (wasm threads block there, never on a page's
 * main thread), and returns the probabilities of a served raw float32 signal.
 * onnxruntime's thread count is fixed by its first session: one worker per run.
 */
import { expose } from 'comlink';
import { loadOrt } from '../../../src/models/ort-loader.ts';
import { configureOrtWasm, pickExecutionProvider, type OrtModule } from '../../../src/models/ort-runtime.ts';
import { SileroVad } from '../../../src/models/silero-vad.ts';

/** What {@link run} is asked to do. */
export interface VadPageOptions {
  provider: 'wasm' | 'webgpu';
  /** wasm threads (more than 1 needs cross-origin isolation). Default 1. */
  threads?: number;
  /** SileroVad lanes. Default SileroVad's (16). */
  lanes?: number;
  /** SileroVad warmup frames per lane. Default SileroVad's (32). */
  warmupFrames?: number;
  /** Accept a software adapter (SwiftShader) for WebGPU: only for tests, it is ~100× slower than wasm. */
  allowFallbackAdapter?: boolean;
  /**
   * `'loader'` (default): the build loadOrt picks for the provider. `'default'`: the plain
   * `onnxruntime-web` entry on the wasm EP, as the engine used before (the benchmark's baseline).
   */
  bundle?: 'loader' | 'default';
  /** With `provider: 'webgpu'`: stop once the adapter is picked (no model load, no run; `probs` empty). */
  adapterOnly?: boolean;
}

/** What {@link run} returns. */
export interface VadPageRun {
  provider: string;
  probs: number[];
  /** Model load (session creation), ms. */
  loadMs: number;
  /** speechProbabilities, ms. */
  ms: number;
  adapter: string;
  threads: number;
  crossOriginIsolated: boolean;
}

type AdapterInfo = {
  info?: { isFallbackAdapter?: boolean; vendor?: string; architecture?: string; description?: string };
} | null;
// DOM's lib has no WebGPU types; this is the part used here (it satisfies GpuLike).
const gpu: { requestAdapter(): Promise<AdapterInfo> } | undefined = (
  navigator as { gpu?: { requestAdapter(): Promise<AdapterInfo> } }
).gpu;

export async function run(inputUrl: string, options: VadPageOptions): Promise<VadPageRun> {
  const threads = options.threads ?? 1;
  let adapter = 'none';
  if (options.provider === 'webgpu') {
    const picked = await pickExecutionProvider(gpu, { allowFallbackAdapter: options.allowFallbackAdapter ?? false });
    if (picked !== 'webgpu')
      throw new Error(
        'WebGPU not available here (no adapter, or only a fallback adapter and allowFallbackAdapter is off)',
      );
    const info = (await gpu!.requestAdapter())?.info;
    adapter =
      `${info?.vendor || '?'} ${info?.architecture || info?.description || ''} fallback=${info?.isFallbackAdapter}`.replace(
        /\s+/g,
        ' ',
      );
    if (options.adapterOnly === true)
      return { provider: 'webgpu', probs: [], loadMs: 0, ms: 0, adapter, threads, crossOriginIsolated };
  }
  const ort =
    options.bundle === 'default'
      ? ((await import('onnxruntime-web')) as unknown as OrtModule)
      : await loadOrt(options.provider);
  configureOrtWasm(ort, '/wasm/ort/', threads);
  const [model, input] = await Promise.all([bytesOf('/models/silero_vad_v6.onnx'), bytesOf(inputUrl)]);
  const samples = new Float32Array(input.buffer, input.byteOffset, input.byteLength / 4);
  const t0 = performance.now();
  const vad = await SileroVad.create(ort, model, {
    executionProvider: options.provider,
    ...(options.lanes !== undefined ? { lanes: options.lanes } : {}),
    ...(options.warmupFrames !== undefined ? { warmupFrames: options.warmupFrames } : {}),
  });
  const t1 = performance.now();
  try {
    const probs = await vad.speechProbabilities(samples);
    return {
      provider: vad.executionProvider,
      probs: Array.from(probs),
      loadMs: t1 - t0,
      ms: performance.now() - t1,
      adapter,
      threads,
      crossOriginIsolated,
    };
  } finally {
    await vad.dispose();
  }
}

async function bytesOf(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** What the worker exposes with comlink. */
export interface VadWorkerApi {
  run: typeof run;
}

expose({ run } satisfies VadWorkerApi);
