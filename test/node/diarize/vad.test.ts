import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { speechDurationMs, speechSegments } from '../../../src/analysis/speech/vad.ts';
import type { SileroVad } from '../../../src/models/silero-vad.ts';
import { decodeWithFfmpeg } from '../../../tools/diarization/audio.ts';
import { createNodeVad } from '../../../tools/diarization/vad-node.ts';
import { sharedPath } from '../../../tools/shared-data.ts';
import { readerDouble } from '../../support/reader-double.ts';

const SPEECH = sharedPath('data', 'librispeech', '1688-142285-0002.flac');

describe('Silero VAD (onnxruntime-web wasm in Node)', () => {
  let vad: SileroVad;
  let signal: Float32Array;
  let speechStartMs: number;
  let speechEndMs: number;
  beforeAll(async () => {
    vad = await createNodeVad(1);
    const speech = decodeWithFfmpeg(SPEECH).samples;
    // 3 s of silence (with faint noise so it is not digital zero), the utterance, 3 s of silence.
    const pad = 3 * 16000;
    signal = new Float32Array(pad + speech.length + pad);
    let seed = 1;
    for (let i = 0; i < signal.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      signal[i] = (seed / 2147483648 - 0.5) * 1e-3;
    }
    signal.set(speech, pad);
    speechStartMs = 3000;
    speechEndMs = ((pad + speech.length) / 16000) * 1000;
  });
  afterAll(async () => {
    await vad?.dispose();
  });

  test('finds speech where the utterance is and none in the silence around it', async () => {
    const probs = await vad.speechProbabilities(signal);
    expect(probs.length).toBe(Math.ceil(signal.length / 512));
    const segments = speechSegments(probs);
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) {
      expect(s.startMs).toBeGreaterThan(speechStartMs - 300);
      expect(s.endMs).toBeLessThan(speechEndMs + 300);
    }
    // Read speech has pauses, but most of the utterance is voiced.
    expect(speechDurationMs(segments)).toBeGreaterThan(0.6 * (speechEndMs - speechStartMs));
    const silent = probs.subarray(0, Math.floor(2500 / 32));
    expect(Math.max(...silent)).toBeLessThan(0.2);
  });

  test('batched lanes give the same decisions as one streaming lane', async () => {
    const single = await createNodeVad(1, { lanes: 1 });
    const batched = await createNodeVad(1, { lanes: 4, warmupFrames: 8 });
    try {
      const a = await single.speechProbabilities(signal);
      const b = await batched.speechProbabilities(signal);
      let disagree = 0;
      for (let i = 0; i < a.length; i++) if (a[i]! >= 0.5 !== b[i]! >= 0.5) disagree++;
      expect(disagree / a.length).toBeLessThan(0.01);
    } finally {
      await single.dispose();
      await batched.dispose();
    }
  });

  test('a signal read by range (a file, test double) gives the same probabilities, each lane reading a window at a time', async () => {
    // Long enough for several 2^16-sample windows per lane, at 8 kHz too.
    const long = new Float32Array(4 * signal.length);
    for (let k = 0; k < 4; k++) long.set(signal, k * signal.length);
    const file = readerDouble(long.slice());
    expect(await vad.speechProbabilities(file)).toEqual(await vad.speechProbabilities(long));
    expect(file.largest).toBeLessThanOrEqual(1 << 16);
    const atEight = readerDouble(long.slice());
    expect(await vad.speechProbabilities(atEight, undefined, 8000)).toEqual(
      await vad.speechProbabilities(long, undefined, 8000),
    );
  }, 60_000);
});
