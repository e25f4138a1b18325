/**
 * Deep tier (`npm run test:deep`): VAD parity checks in Chromium through the engine's own
 * loading code (test/browser/pages/vad.ts), not a user's flow.
 * - Silero VAD on WebGPU against wasm. This machine has no GPU, so WebGPU runs on SwiftShader (a
 *   fallback adapter, allowed here explicitly; ~70× slower than wasm), on a few seconds of input
 *   only: a provider the engine refuses on software adapters (test/browser/vad.test.ts checks
 *   that refusal in the browser tier).
 * - Per-mic VAD in one lane in memory, in three lanes on disk, without the gates, with the floor
 *   gate alone: the same turns (the browser tier runs the three lanes on disk, as a job does).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { speechSegments } from '../../src/analysis/speech/vad.ts';
import { diarizationErrorRate } from '../../src/analysis/diarize/der.ts';
import { assembleConversation, withBleed } from '../../tools/diarization/assemble.ts';
import { decodeWithFfmpeg } from '../../tools/diarization/audio.ts';
import { openVadBrowser, type BrowserVadRun, type VadBrowser } from '../../tools/diarization/chromium-vad.ts';
import { sharedPath } from '../../tools/shared-data.ts';
import { patient } from '../support/patience.ts';

const RATE = 16000;
let chromium: VadBrowser;
beforeAll(async () => {
  chromium = await openVadBrowser({ webgpu: true });
});
afterAll(async () => {
  await chromium?.close();
});

const reader = decodeWithFfmpeg(sharedPath('data', 'librispeech', '1688-142285-0002.flac')).samples;

/** Silence and stretches of a real reader: 0.75 s off, 1.5 s on, 0.75 s off, 1 s on (4 s, 125 frames). */
function speechAndSilence(): Float32Array {
  const x = new Float32Array(4 * RATE);
  x.set(reader.subarray(0, 1.5 * RATE), 0.75 * RATE);
  x.set(reader.subarray(2 * RATE, 3 * RATE), 3 * RATE);
  return x;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(b.length).toBe(a.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

test('Silero VAD on WebGPU gives wasm’s probabilities and the same speech segments', async () => {
  const input = speechAndSilence();
  const wasm = await chromium.run(input, { provider: 'wasm', lanes: 1 });
  let gpu: BrowserVadRun;
  try {
    gpu = await chromium.run(input, { provider: 'webgpu', lanes: 1, allowFallbackAdapter: true });
  } catch (error) {
    throw new Error(
      `WebGPU did not run in Chromium with --enable-unsafe-webgpu (SwiftShader expected): ${(error as Error).message}`,
      { cause: error },
    );
  }
  expect(gpu.provider).toBe('webgpu');
  // WebGPU runs on the JSEP build (not onnxruntime-web/webgpu's native EP: see ort-loader.ts).
  expect(gpu.requests).toContain('/wasm/ort/ort-wasm-simd-threaded.jsep.wasm');
  const diff = maxAbsDiff(wasm.probs, gpu.probs);
  console.log(
    `[vad] WebGPU (${gpu.adapter}) vs wasm, 4 s streaming: max |Δp| = ${diff.toExponential(2)}; ${(gpu.ms / 1000).toFixed(1)} s vs ${(wasm.ms / 1000).toFixed(2)} s`,
  );
  // Both are float32 with differently ordered sums: measured 9e-7 over 125 frames of LSTM
  // recurrence. 1e-4 leaves 100× margin and is still 4 orders below the 0.5 decision
  // threshold; onnxruntime-web/webgpu's native EP (the wrong build, 1.30) was 0.98 off here.
  expect(diff).toBeLessThan(1e-4);
  const segments = speechSegments(wasm.probs);
  expect(speechSegments(gpu.probs)).toEqual(segments);
  // The input's two stretches of speech are found, and its silences are not speech.
  expect(segments.length).toBeGreaterThanOrEqual(2);
  expect(segments[0]!.startMs).toBeGreaterThan(600);
  expect(segments[0]!.startMs).toBeLessThan(1000);
  expect(segments.every((s) => s.endMs <= 2400 || s.startMs >= 2900)).toBe(true);
});

test('batched lanes on WebGPU give what the same lanes give on wasm', async () => {
  // 4 lanes, 4 warm-up frames: the batched path (lane state reset, per-lane framing) on GPU.
  const input = speechAndSilence().subarray(0, 3 * RATE);
  const options = { lanes: 4, warmupFrames: 4 } as const;
  const wasm = await chromium.run(input, { provider: 'wasm', ...options });
  const gpu = await chromium.run(input, { provider: 'webgpu', allowFallbackAdapter: true, ...options });
  expect(gpu.provider).toBe('webgpu');
  expect(maxAbsDiff(wasm.probs, gpu.probs)).toBeLessThan(1e-4);
  expect(speechSegments(gpu.probs)).toEqual(speechSegments(wasm.probs));
  expect(speechSegments(wasm.probs).length).toBeGreaterThan(0);
});

test(
  'per-mic VAD runs the channels side by side, each lane a worker of its own, with the same result',
  async () => {
    // 60 s of three readers, each on a mic that hears the others 16 dB down: the analysis worker as the diarizing stage calls it.
    const mics = withBleed(assembleConversation({ speakers: 3, seconds: 60, seed: 21 }).tracks);
    // One lane with the channels kept in memory; three with them on disk (the private file system).
    const one = await chromium.diarize(mics, { vadLanes: 1, keepInMemory: true });
    const three = await chromium.diarize(mics, { vadLanes: 3 });
    if (!one.outcome.ok || !three.outcome.ok) throw new Error('diarize failed');
    console.log(
      `[vad] per-mic, 3 × 60 s on wasm: VAD ${(one.outcome.vadMs / 1000).toFixed(2)} s in one lane, ${(three.outcome.vadMs / 1000).toFixed(2)} s in three`,
    );
    expect([one.outcome.vadProvider, one.outcome.vadLanes, three.outcome.vadLanes]).toEqual(['wasm', 1, 3]);
    // With three lanes the channels waited on disk while the VAD ran, and the lane read its share
    // of the crosstalk residuals from files: the job's audio is the same WAV, byte for byte, as
    // the mix made here, with the same quiet ranges; when the call returned only that WAV was
    // left, and once dropped nothing. In memory: the same WAV, no folder.
    expect(one.mix).toMatchObject({ sameWav: true, sameQuietRanges: true, scratch: null, entries: [] });
    expect(three.mix).toMatchObject({ sameWav: true, sameQuietRanges: true, entriesAfterDrop: [] });
    expect(three.mix?.scratch).toMatch(/^multicam-diarize-\d+-/);
    expect(three.mix?.entries).toEqual([`${three.mix?.scratch}/`, `${three.mix?.scratch}/mix.wav`]);
    // With lanes, one more measured half of the crosstalk residuals in shared memory: the same turns.
    expect([one.outcome.residualThreads, three.outcome.residualThreads]).toEqual([1, 2]);
    // Per-mic detection read the channels where they were, in files, through the low cut written
    // back; the lane read its half from the same files (both opened read-only).
    expect(three.outcome.residualShare).toBe('files');
    // The VAD read each mic's input (its gated stretches at 8 kHz) from a file there too.
    expect([one.outcome.vadInputs, three.outcome.vadInputs]).toEqual(['memory', 'files']);
    expect(one.outcome.residualShare).toBeUndefined();
    // The lanes' probabilities are the analysis worker's own, so the turns are the same to the millisecond.
    expect(three.outcome.result).toEqual(one.outcome.result);
    // Close mics go through the energy gate and its bleed gate: the VAD skips each mic's floor
    // and the frames where it carries only the others' bleed (most of them here).
    // (In memory with lanes: the residual lane gets copies of its half.)
    const ungated = await chromium.diarize(mics, { vadLanes: 3, vadGate: false, keepInMemory: true });
    if (!ungated.outcome.ok || ungated.outcome.result.kind !== 'speakers' || one.outcome.result.kind !== 'speakers')
      throw new Error('diarize failed');
    expect(ungated.outcome.vadSkipped).toBe(0);
    expect(ungated.outcome.residualShare).toBe('copies');
    const between = diarizationErrorRate(ungated.outcome.result.turns, one.outcome.result.turns, { collarMs: 250 });
    console.log(
      `[vad] gate: ${(one.outcome.vadSkipped * 100).toFixed(0)} % of frames skipped; turns vs ungated: DER ${(between.der * 100).toFixed(2)} % (0.25 s collar)`,
    );
    expect(between.der).toBeLessThan(0.05);
    // Asked for no bleed gate, the floor gate alone skips little (in these conversations someone is
    // always heard through the bleed), and the turns stay close.
    const floorGated = await chromium.diarize(mics, { vadLanes: 3, vadBleedGate: false });
    if (!floorGated.outcome.ok || floorGated.outcome.result.kind !== 'speakers') throw new Error('diarize failed');
    expect(one.outcome.vadSkipped).toBeGreaterThan(0.4);
    expect(floorGated.outcome.vadSkipped).toBeGreaterThan(0);
    expect(floorGated.outcome.vadSkipped).toBeLessThan(one.outcome.vadSkipped - 0.2);
    const moved = diarizationErrorRate(floorGated.outcome.result.turns, one.outcome.result.turns, { collarMs: 250 });
    console.log(
      `[vad] floor gate alone: ${(floorGated.outcome.vadSkipped * 100).toFixed(0)} % of frames skipped; turns vs both gates: DER ${(moved.der * 100).toFixed(2)} %`,
    );
    expect(moved.der).toBeLessThan(0.05);
    expect(three.outcome.result.kind === 'speakers' && three.outcome.result.speakers.length).toBe(3);
    // Only the call with lanes started the lane worker (and its onnxruntime build: the plain wasm one).
    expect(three.requests.filter((path) => /vad-lane/.test(path)).length).toBeGreaterThan(0);
    expect(one.requests.filter((path) => /vad-lane/.test(path))).toEqual([]);
    expect(three.requests.filter((path) => /jsep|asyncify/.test(path))).toEqual([]);
  },
  patient(120_000),
);
