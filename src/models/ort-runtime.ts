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

/**
 * Points onnxruntime-web at its pinned wasm files. In the browser that is `/wasm/ort/`
 * (copied by scripts/copy-assets.mjs); in Node a plain directory path to
 * `node_modules/onnxruntime-web/dist/` (a file: URL makes it try `fetch`, which fails).
 */
export function configureOrtWasm(ort: OrtModule, wasmPaths: string, numThreads: number): void {
  ort.env.wasm.wasmPaths = wasmPaths;
  ort.env.wasm.numThreads = numThreads;
}
