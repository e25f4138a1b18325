/**
 * Loads the onnxruntime-web build that serves an execution provider, on demand, so a page or
 * worker that runs on wasm never downloads the WebGPU code (and the reverse).
 *
 * - `'wasm'` → `onnxruntime-web/wasm`: the plain SIMD/threads build
 *   (`ort-wasm-simd-threaded.wasm`, 14 MB). Measured 1.2–1.6× faster for Silero VAD in
 *   Chromium here (bench/diarize) than the wasm EP of the default bundle, which runs on the
 *   larger JSEP binary, and its sessions load about twice as fast.
 * - `'webgpu'` → `onnxruntime-web`, the default bundle, whose WebGPU EP is JSEP
 *   (`ort-wasm-simd-threaded.jsep.wasm`). Not `onnxruntime-web/webgpu`: in 1.30 that entry is the
 *   new native WebGPU EP (`…asyncify.wasm`), whose Conv gives wrong results when a Conv has
 *   129 (or 33) input channels — Silero's first encoder layer has 129 — so its speech
 *   probabilities were up to 0.98 away from wasm's. JSEP agrees with wasm to ~1e-6 on the same
 *   adapter. See docs/decisions/003-diarization.md.
 *
 * Both builds read their `.wasm`/`.mjs` files from `ort.env.wasm.wasmPaths`
 * (see {@link configureOrtWasm}); scripts/copy-assets.mjs pins exactly these four files in `wasm/ort/`.
 *
 * @module
 */
import { ortWasmBytes } from './asset-cache.ts';
import {
  configureOrtWasm,
  isOrtWasmInstantiated,
  type ExecutionProviderName,
  type OrtModule,
} from './ort-runtime.ts';

const loaded = new Map<ExecutionProviderName, Promise<OrtModule>>();

/**
 * The onnxruntime-web module to create sessions with for `provider` (imported once per
 * provider and realm). Configure its wasm paths and threads before the first session.
 *
 * @example
 * const provider = await pickExecutionProvider(navigator.gpu);
 * const ort = await loadOrt(provider);
 * configureOrtWasm(ort, '/wasm/ort/', 1);
 * const vad = await SileroVad.create(ort, modelBytes, { executionProvider: provider });
 */
export function loadOrt(provider: ExecutionProviderName): Promise<OrtModule> {
  let module = loaded.get(provider);
  if (!module) {
    // Literal specifiers, so the bundler splits each build into its own chunk.
    module = (provider === 'webgpu' ? import('onnxruntime-web') : import('onnxruntime-web/wasm'));
    module.catch(() => loaded.delete(provider));
    loaded.set(provider, module);
  }
  return module;
}

/**
 * {@link loadOrt}, pointed at `ortWasmPath` with one thread, its `.wasm` checked to be served, or
 * with the page's asset cache fetched once per page and handed over as bytes
 * (./asset-cache.ts). A runtime already running is returned as it is. Call
 * `ortWasmInstantiated` once its first session exists.
 */
export async function prepareOrt(
  provider: ExecutionProviderName,
  ortWasmPath: string,
  assetCache?: string,
): Promise<OrtModule> {
  const runtime = await loadOrt(provider);
  if (!isOrtWasmInstantiated(runtime))
    configureOrtWasm(runtime, ortWasmPath, 1, await ortWasmBytes(provider, ortWasmPath, assetCache));
  return runtime;
}
