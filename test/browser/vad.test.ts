/**
 * Silero VAD in Chromium through the engine's own loading code (test/browser/pages/vad.ts:
 * pickExecutionProvider → loadOrt → SileroVad): the wasm build must give Node's
 * probabilities, and the engine must refuse a software WebGPU adapter. That WebGPU (on
 * SwiftShader here: no GPU) gives wasm's probabilities is a parity check, not a user's flow:
 * it is in the deep tier, test/deep/vad-webgpu.test.ts.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SileroVad } from '../../src/models/silero-vad.ts';
import { assembleConversation, withBleed } from '../../tools/diarization/assemble.ts';
import { decodeWithFfmpeg } from '../../tools/diarization/audio.ts';
import { openVadBrowser, type VadBrowser } from '../../tools/diarization/chromium-vad.ts';
import { createNodeVad } from '../../tools/diarization/vad-node.ts';
import { sharedPath } from '../../tools/shared-data.ts';
import { patient } from '../support/patience.ts';

const RATE = 16000;
let vad: SileroVad;
let chromium: VadBrowser;
beforeAll(async () => {
  vad = await createNodeVad(1, { lanes: 1 });
  chromium = await openVadBrowser({ webgpu: true });
});
afterAll(async () => {
  await vad?.dispose();
  await chromium?.close();
});

const reader = decodeWithFfmpeg(sharedPath('data', 'librispeech', '1688-142285-0002.flac')).samples;

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(b.length).toBe(a.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

test('Silero VAD in Chromium (onnxruntime-web/wasm) gives the probabilities Node gives', async () => {
  // 1 s of silence then 2 s of a real reader: both decisions must show up.
  const input = new Float32Array(3 * RATE);
  input.set(reader.subarray(0, 2 * RATE), RATE);
  const node = await vad.speechProbabilities(input);
  const browser = await chromium.run(input, { provider: 'wasm', lanes: 1 });
  expect(browser.provider).toBe('wasm');
  // The wasm path downloads the plain build and binary from the pinned assets, never the JSEP ones.
  expect(browser.requests).toContain('/wasm/ort/ort-wasm-simd-threaded.wasm');
  expect(browser.requests.filter((path) => /jsep|ort\.bundle|asyncify/.test(path))).toEqual([]);
  expect(maxAbsDiff(node, browser.probs)).toBeLessThan(1e-3);
  expect(Math.max(...browser.probs.slice(0, 25))).toBeLessThan(0.2);
  expect(browser.probs.slice(35).filter((p) => p > 0.5).length).toBeGreaterThan(20);
});

test('the engine’s provider choice refuses a software WebGPU adapter', async () => {
  // Which adapter the browser offers (no model is loaded on it: on SwiftShader that takes long).
  const probe = await chromium.run(new Float32Array(512), {
    provider: 'webgpu',
    lanes: 1,
    allowFallbackAdapter: true,
    adapterOnly: true,
  });
  const strict = chromium.run(new Float32Array(512), { provider: 'webgpu', lanes: 1 });
  if (probe.adapter.includes('fallback=true')) await expect(strict).rejects.toThrow(/WebGPU not available/);
  else expect((await strict).provider).toBe('webgpu'); // a hardware adapter is taken
});

test(
  'per-mic VAD runs the channels side by side, each lane a worker of its own',
  async () => {
    // 60 s of three readers, each on a mic that hears the others 16 dB down: the analysis worker
    // as the diarizing stage calls it, with three lanes and the channels on disk (the private file
    // system). That one lane in memory, and the gates switched off, give the same turns is a
    // parity check in the deep tier (test/deep/vad-webgpu.test.ts).
    const mics = withBleed(assembleConversation({ speakers: 3, seconds: 60, seed: 21 }).tracks);
    const three = await chromium.diarize(mics, { vadLanes: 3 });
    if (!three.outcome.ok) throw new Error('diarize failed');
    expect([three.outcome.vadProvider, three.outcome.vadLanes]).toEqual(['wasm', 3]);
    // The channels waited on disk while the VAD ran, and the lane read its share of the crosstalk
    // residuals from files: the job's audio is the same WAV, byte for byte, as the mix made here,
    // with the same quiet ranges; when the call returned only that WAV was left, and once dropped nothing.
    expect(three.mix).toMatchObject({ sameWav: true, sameQuietRanges: true, entriesAfterDrop: [] });
    expect(three.mix?.scratch).toMatch(/^multicam-diarize-\d+-/);
    expect(three.mix?.entries).toEqual([`${three.mix?.scratch}/`, `${three.mix?.scratch}/mix.wav`]);
    // One more lane measured half of the crosstalk residuals, reading the channels where they were.
    expect(three.outcome.residualThreads).toBe(2);
    expect(three.outcome.residualShare).toBe('files');
    expect(three.outcome.vadInputs).toBe('files');
    expect(three.outcome.result.kind === 'speakers' && three.outcome.result.speakers.length).toBe(3);
    // Each mic's recorded loudness, measured from its file as it was mixed, is what the channel in
    // memory measures; each mic carries its own reader (the levelling the editor shows before a render).
    const { levels, levelsHere } = three.mix!;
    expect(levels.sources.length).toBe(3);
    levels.sources.forEach((source, i) => {
      expect(source.integratedLufs).toBeCloseTo(levelsHere.sources[i]!.integratedLufs!, 1);
      expect(source.speakers.map((k) => k.speaker)).toEqual(levelsHere.sources[i]!.speakers.map((k) => k.speaker));
      expect(source.speakers.length).toBe(1);
    });
    expect(new Set(levels.sources.map((s) => s.speakers[0]!.speaker)).size).toBe(3);
    // The lane worker started, on the plain wasm build of onnxruntime.
    expect(three.requests.filter((path) => /vad-lane/.test(path)).length).toBeGreaterThan(0);
    expect(three.requests.filter((path) => /jsep|asyncify/.test(path))).toEqual([]);
  },
  patient(60_000),
);

test(
  'aborting a per-mic call ends it while its lanes run',
  async () => {
    const mics = withBleed(assembleConversation({ speakers: 3, seconds: 60, seed: 21 }).tracks);
    await expect(chromium.diarize(mics, { vadLanes: 3, abortAfterMs: 1500 })).rejects.toThrow(/cancelled/);
    // What it wrote to the private file system is gone with it.
    expect(await chromium.scratchEntries()).toEqual([]);
  },
  patient(60_000),
);
