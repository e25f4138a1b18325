import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SileroVad } from '../../src/models/silero-vad.ts';
import { decodeWithFfmpeg } from '../../tools/diarization/audio.ts';
import { runVadInChromium } from '../../tools/diarization/chromium-vad.ts';
import { createNodeVad } from '../../tools/diarization/vad-node.ts';

let vad: SileroVad;
beforeAll(async () => {
  vad = await createNodeVad(1, { lanes: 1 });
});
afterAll(async () => {
  await vad?.dispose();
});

test('Silero VAD in Chromium (onnxruntime-web wasm) gives the probabilities Node gives', async () => {
  // 1 s of silence then 2 s of a real reader: both decisions must show up.
  const speech = decodeWithFfmpeg('/work/shared/data/librispeech/1688-142285-0002.flac').samples.subarray(0, 2 * 16000);
  const input = new Float32Array(3 * 16000);
  input.set(speech, 16000);
  const node = await vad.speechProbabilities(input);
  const browser = await runVadInChromium(input, 'wasm');
  expect(browser.probs).toHaveLength(node.length);
  let maxDiff = 0;
  for (let i = 0; i < node.length; i++) maxDiff = Math.max(maxDiff, Math.abs(node[i]! - browser.probs[i]!));
  expect(maxDiff).toBeLessThan(1e-3);
  expect(Math.max(...browser.probs.slice(0, 25))).toBeLessThan(0.2);
  expect(browser.probs.slice(35).filter((p) => p > 0.5).length).toBeGreaterThan(20);
});

// The WebGPU path runs here only on SwiftShader (a fallback adapter, ~25× slower than real
// time) and its probabilities differ from wasm's there (first frame 0.39 vs 0.12), so the
// "same result" check cannot pass on this machine: see docs/decisions/003-diarization.md.
test.skip('Silero VAD on WebGPU matches wasm (needs a hardware adapter)', () => {});
