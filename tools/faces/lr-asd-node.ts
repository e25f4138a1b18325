/**
 * LR-ASD in Node for tests, evals and benches: onnxruntime-web's wasm build with its wasm files
 * read from node_modules, and the model from the shared data (`../shared/models/lr-asd.onnx`,
 * never copied into the repository: a host app serves it to the slot).
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web/wasm';
import { LrAsd } from '../../src/models/lr-asd.ts';
import { configureOrtWasm } from '../../src/models/ort-runtime.ts';
import { REPO_ROOT, sharedPath } from '../shared-data.ts';

/** Path of the shared LR-ASD model. */
export const LR_ASD_MODEL_PATH = sharedPath('models', 'lr-asd.onnx');

/** Loads LR-ASD on the wasm backend, or returns undefined when the shared model is absent. */
export async function createNodeLrAsd(threads = 1): Promise<LrAsd | undefined> {
  if (!existsSync(LR_ASD_MODEL_PATH)) return undefined;
  configureOrtWasm(ort, join(REPO_ROOT, 'node_modules', 'onnxruntime-web', 'dist') + '/', threads);
  ort.env.logLevel = 'error';
  return LrAsd.create(ort, new Uint8Array(readFileSync(LR_ASD_MODEL_PATH)), { label: LR_ASD_MODEL_PATH });
}
