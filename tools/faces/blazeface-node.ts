/**
 * BlazeFace in Node for evals, benches and tests: onnxruntime-web's wasm build with its wasm
 * files read from node_modules and the model pinned in models/ (the engine's model and engine,
 * so figures carry over to the browser).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web/wasm';
import { BLAZEFACE_MODEL_FILE, BlazeFace } from '../../src/models/blazeface.ts';
import { configureOrtWasm } from '../../src/models/ort-runtime.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Path of the pinned model (copied by scripts/copy-assets.mjs). */
export const BLAZEFACE_MODEL_PATH = join(root, 'models', BLAZEFACE_MODEL_FILE);

/** Loads BlazeFace on the wasm backend with one thread. */
export async function createNodeBlazeFace(): Promise<BlazeFace> {
  configureOrtWasm(ort, join(root, 'node_modules', 'onnxruntime-web', 'dist') + '/', 1);
  ort.env.logLevel = 'error';
  return BlazeFace.create(ort, new Uint8Array(readFileSync(BLAZEFACE_MODEL_PATH)));
}
