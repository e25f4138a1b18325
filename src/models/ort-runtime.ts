/**
 * Choosing where onnxruntime-web runs: WebGPU on a real adapter, the wasm build otherwise.
 *
 * The ort module itself is passed in by the caller (in the browser from `loadOrt` in
 * ./ort-loader.ts: `onnxruntime-web/wasm` for wasm, the JSEP bundle for WebGPU) so a page
 * that never sees a GPU does not load the larger JSEP bundle, and Node can use the same code.
 *
 * @module
 */
import type * as Ort from 'onnxruntime-web';

/** The onnxruntime-web module (any of its bundles: they share one API). */
export type OrtModule = typeof Ort;

/** Where a session runs. */
export type ExecutionProviderName = 'webgpu' | 'wasm';

/** The part of `navigator.gpu` we use (lib WebWorker has no WebGPU types). */
export interface GpuLike {
  requestAdapter(): Promise<{ info?: { isFallbackAdapter?: boolean } } | null>;
}

/**
 * 'webgpu' when the browser offers a hardware adapter, else 'wasm'. A software fallback
 * adapter (SwiftShader) is refused: it is about 70× slower than wasm for these models.
 */
export async function pickExecutionProvider(gpu: GpuLike | undefined, options: { allowFallbackAdapter?: boolean } = {}): Promise<ExecutionProviderName> {
  if (!gpu) return 'wasm';
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return 'wasm';
    if (adapter.info?.isFallbackAdapter && !options.allowFallbackAdapter) return 'wasm';
    return 'webgpu';
  } catch {
    return 'wasm';
  }
}

/** The onnxruntime modules of this realm whose wasm has been instantiated. */
const ortWasmStarted = new WeakSet<OrtModule>();

/** The `.wasm` of the onnxruntime build that runs `provider` (./ort-loader.ts), in `wasm/ort/`. */
export function ortWasmFile(provider: ExecutionProviderName): string {
  return `ort-wasm-simd-threaded${provider === 'webgpu' ? '.jsep' : ''}.wasm`;
}

/**
 * Points onnxruntime-web at its pinned wasm files. In the browser that is `/wasm/ort/`
 * (copied by scripts/copy-assets.mjs); in Node a plain directory path to
 * `node_modules/onnxruntime-web/dist/` (a file: URL makes it try `fetch`, which fails).
 * With `binary` (the `.wasm`'s bytes, fetched already) it does not fetch the `.wasm` itself.
 */
export function configureOrtWasm(ort: OrtModule, wasmPaths: string, numThreads: number, binary?: ArrayBuffer): void {
  ort.env.wasm.wasmPaths = wasmPaths;
  ort.env.wasm.numThreads = numThreads;
  // The bytes of the `.wasm` (src/models/asset-cache.ts: fetched once per page); the `.mjs` glue
  // still comes from `wasmPaths`. Only before the first session: onnxruntime starts its wasm once.
  if (binary && !ortWasmStarted.has(ort)) ort.env.wasm.wasmBinary = binary;
}

/** Whether a session of `ort` has been created (its wasm is running: nothing to fetch or configure). */
export function isOrtWasmInstantiated(ort: OrtModule): boolean {
  return ortWasmStarted.has(ort);
}

/**
 * Call once a session of `ort` exists: its wasm is instantiated, and the bytes handed over in
 * {@link configureOrtWasm} are let go of. onnxruntime and its Emscripten module keep a reference
 * to them for good, so the buffer is detached (transferred away): 14 MB less in every worker.
 * WebAssembly took its own copy when it compiled them, and nothing reads them again.
 */
export function ortWasmInstantiated(ort: OrtModule): void {
  ortWasmStarted.add(ort);
  const binary = ort.env.wasm.wasmBinary;
  if (binary === undefined) return;
  delete ort.env.wasm.wasmBinary;
  if (binary instanceof ArrayBuffer) structuredClone(binary, { transfer: [binary] });
}
