/**
 * Silero VAD as the engine's workers load it: the onnxruntime-web build for the execution
 * provider (only that one is downloaded), one wasm thread, the model from its bytes. The
 * analysis worker and its VAD lanes (workers/) both start it this way, so every lane computes what the
 * analysis worker would.
 *
 * @module
 */
import { prepareOrt } from './ort-loader.ts';
import { ortWasmInstantiated, type ExecutionProviderName, type OrtModule } from './ort-runtime.ts';
import { SileroVad } from './silero-vad.ts';

/**
 * Loads onnxruntime-web for `executionProvider` (wasm files under `ortWasmPath`; with the page's
 * `assetCache`, its `.wasm` fetched once per page: ./asset-cache.ts) and Silero from `bytes`.
 */
export async function startSilero(
  executionProvider: ExecutionProviderName,
  bytes: Uint8Array,
  ortWasmPath: string,
  assetCache?: string,
): Promise<{ model: SileroVad; runtime: OrtModule }> {
  // One thread: a second one does not make Silero faster; a second channel beside it does (VAD lanes).
  const runtime = await prepareOrt(executionProvider, ortWasmPath, assetCache);
  const model = await SileroVad.create(runtime, bytes, { executionProvider });
  ortWasmInstantiated(runtime);
  return { model, runtime };
}
