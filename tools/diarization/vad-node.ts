/**
 * Silero VAD in Node: onnxruntime-web's wasm build with its wasm files read from
 * node_modules (the same engine and model the browser uses, so figures carry over).
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web/wasm';
import { configureOrtWasm } from '../../src/models/ort-runtime.ts';
import { PyannoteSegmentation } from '../../src/models/segmentation.ts';
import {
  SILERO_FRAME_SAMPLES,
  SileroVad,
  type SileroRate,
  type SileroVadOptions,
} from '../../src/models/silero-vad.ts';
import {
  BLEED_GATE_MARGIN_DB,
  closeMicStretches,
  joinStretches,
  spreadGated,
} from '../../src/analysis/speech/vad-gate.ts';
import { resample } from '../../src/analysis/signal/signal-resample.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Path of the pinned model (models/silero_vad_v6.onnx, copied by scripts/copy-assets.mjs). */
export const SILERO_MODEL_PATH = join(root, 'models', 'silero_vad_v6.onnx');

/** Loads Silero VAD on the wasm backend with `threads` threads. */
export async function createNodeVad(threads = 1, options: SileroVadOptions = {}): Promise<SileroVad> {
  // A plain directory path: with a file: URL onnxruntime-web tries fetch() and fails in Node.
  configureOrtWasm(ort, join(root, 'node_modules', 'onnxruntime-web', 'dist') + '/', threads);
  return SileroVad.create(ort, new Uint8Array(readFileSync(SILERO_MODEL_PATH)), options);
}

/**
 * Speech probabilities of each channel, one after another (what per-mic takes); with several
 * channels, behind the energy gate and its bleed gate as in the engine (`MULTICAM_VAD_GATE=0`
 * turns both off; `MULTICAM_VAD_BLEED_MARGIN=off` the bleed gate alone, `=6` sets its margin in
 * dB; `MULTICAM_VAD_JOINT_GAP` the frames of silence between joined stretches).
 */
export async function channelProbabilities(
  vad: SileroVad,
  channels: readonly Float32Array[],
  gate = channels.length > 1 && process.env['MULTICAM_VAD_GATE'] !== '0',
): Promise<Float32Array[]> {
  // As the analysis worker: close mics at 8 kHz (`MULTICAM_VAD_RATE=16000` keeps 16 kHz).
  const rate: SileroRate = channels.length > 1 && process.env['MULTICAM_VAD_RATE'] !== '16000' ? 8000 : 16000;
  const run = (x: Float32Array): Promise<Float32Array> =>
    rate === 8000 ? vad.speechProbabilities(resample(x, 16000, 8000), undefined, 8000) : vad.speechProbabilities(x);
  const probs: Float32Array[] = [];
  // Behind the energy and bleed gates, as the analysis worker does for close mics (src/analysis/speech/vad-gate.ts).
  const bleedMargin = process.env['MULTICAM_VAD_BLEED_MARGIN'];
  const bleedQ = process.env['MULTICAM_VAD_BLEED_Q'];
  const gates = gate
    ? closeMicStretches(channels, SILERO_FRAME_SAMPLES, {
        bleedMarginDb: bleedMargin === 'off' ? null : bleedMargin ? Number(bleedMargin) : BLEED_GATE_MARGIN_DB,
        ...(bleedQ ? { bleedQuantile: Number(bleedQ) } : {}),
        ...(process.env['MULTICAM_VAD_JOINT_GAP']
          ? { jointGapFrames: Number(process.env['MULTICAM_VAD_JOINT_GAP']) }
          : {}),
      })
    : null;
  for (const [i, c] of channels.entries()) {
    const gated = gates?.[i];
    probs.push(await run(gated ? joinStretches(c, SILERO_FRAME_SAMPLES, gated) : c));
  }
  if (gates && process.env['MULTICAM_VAD_GATE_LOG']) {
    const kept = gates.reduce((n, g) => n + g.keep.reduce((k, s) => k + s.end - s.start, 0), 0);
    const total = gates.reduce((n, g) => n + g.frames, 0);
    const gaps = gates.reduce((n, g) => n + Math.max(0, g.keep.length - 1) * (g.gap ?? 0), 0);
    console.log(
      `[vad-gate] kept ${((100 * kept) / total).toFixed(1)} % of frames, joint gaps ${((100 * gaps) / total).toFixed(1)} %`,
    );
  }
  // Frames skipped as a neighbour's bleed take its probability (`MULTICAM_VAD_CREDIT=0` leaves them at 0).
  return gates ? spreadGated(probs, gates, process.env['MULTICAM_VAD_CREDIT'] !== '0') : probs;
}

/** Where tests and tools look for the optional segmentation model (never copied into the repo). */
export const SEGMENTATION_MODEL_PATH = join(root, '..', 'shared', 'models', 'pyannote-segmentation-3.0.int8.onnx');

/** Loads pyannote segmentation-3.0 on wasm, or returns undefined when the file is absent. */
export async function createNodeSegmentation(threads = 1): Promise<PyannoteSegmentation | undefined> {
  if (!existsSync(SEGMENTATION_MODEL_PATH)) return undefined;
  configureOrtWasm(ort, join(root, 'node_modules', 'onnxruntime-web', 'dist') + '/', threads);
  return PyannoteSegmentation.create(ort, new Uint8Array(readFileSync(SEGMENTATION_MODEL_PATH)));
}
