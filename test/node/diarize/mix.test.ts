import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { diarizationErrorRate } from '../../../src/analysis/diarize/der.ts';
import { diarizeMix, diarizeMixWithDiagnostics, mergeSpeakerLabels } from '../../../src/analysis/diarize/mix.ts';
import { viterbiSegment } from '../../../src/analysis/diarize/viterbi.ts';
import type { SileroVad } from '../../../src/models/silero-vad.ts';
import { assembleConversation, type Conversation } from '../../../tools/diarization/assemble.ts';
import { createNodeVad } from '../../../tools/diarization/vad-node.ts';
import { patient } from '../../support/patience.ts';

describe('viterbiSegment', () => {
  test('follows the scores but never switches for less than the minimum duration', () => {
    const T = 100;
    const a = new Float64Array(T);
    const b = new Float64Array(T);
    for (let t = 0; t < T; t++) {
      const bFavoured = (t >= 40 && t < 70) || t === 20 || t === 21; // a 2-frame blip at 20
      a[t] = bFavoured ? -2 : 0;
      b[t] = bFavoured ? 0 : -2;
    }
    const path = viterbiSegment([a, b], 10, 1);
    expect(path[20]).toBe(0);
    expect(path[55]).toBe(1);
    expect([...path.subarray(0, 40)].every((x) => x === 0)).toBe(true);
    expect([...path.subarray(42, 68)].every((x) => x === 1)).toBe(true);
    expect(path[90]).toBe(0);
  });

  test('a per-frame switch penalty puts the change where it is cheap', () => {
    // b fits a little worse than a over frames 45..49 and better from 50 on; a change costs 20
    // everywhere except at frame 45 (where a pause was cut out), where it costs nothing.
    const T = 100;
    const a = new Float64Array(T);
    const b = new Float64Array(T);
    for (let t = 0; t < T; t++) {
      a[t] = t < 50 ? 0 : -1;
      b[t] = t < 45 ? -1 : t < 50 ? -0.5 : 0;
    }
    const flat = viterbiSegment([a, b], 5, 20);
    expect(flat.indexOf(1)).toBe(50);
    const perFrame = new Float64Array(T).fill(20);
    perFrame[45] = 0;
    const cheap = viterbiSegment([a, b], 5, perFrame);
    expect(cheap.indexOf(1)).toBe(45);
    expect([...cheap.subarray(45)].every((x) => x === 1)).toBe(true);
  });
});

describe('diarizeMix on an assembled conversation (real Silero VAD)', () => {
  let vad: SileroVad;
  let conv: Conversation;
  let probs: Float32Array;
  beforeAll(async () => {
    vad = await createNodeVad(1);
    conv = assembleConversation({ speakers: 2, seconds: 60, seed: 1 });
    probs = await vad.speechProbabilities(conv.mix);
  }, patient(60_000));
  afterAll(async () => {
    await vad?.dispose();
  });

  test('finds two speakers by itself and keeps DER low', () => {
    const { result, diagnostics } = diarizeMixWithDiagnostics(conv.mix, 16000, probs);
    expect(result.kind).toBe('speakers');
    if (result.kind !== 'speakers') return;
    expect(result.speakers).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    expect(diagnostics.eigengapCount).toBe(2);
    // ~50 s of speech: over-clustered to three (15 s each), the GLR merge brings it back to two.
    expect(diagnostics.clusteredFrom).toBe(3);
    const score = diarizationErrorRate(conv.truth, result.turns);
    expect(score.confusion / score.scored).toBeLessThan(0.08);
    expect(score.der).toBeLessThan(0.25);
  });

  test('one voice alone is one speaker', () => {
    const solo = conv.tracks[0]!;
    const soloTruth = conv.truth.filter((t) => t.speaker === conv.speakerIds[0]);
    return vad.speechProbabilities(solo).then((p) => {
      const r = diarizeMix(solo, 16000, p);
      if (r.kind !== 'speakers') throw new Error('expected speakers');
      expect(r.speakers.length).toBe(1);
      expect(diarizationErrorRate(soloTruth, r.turns).der).toBeLessThan(0.25);
    });
  });

  // How often the GLR merge keeps a single voice whole, and over-clustering's count over UBM seeds,
  // are measured by `npm run eval -- --only diarization`.

  test('silence gives no-speech', () => {
    const quiet = new Float32Array(16000 * 5);
    const r = diarizeMix(quiet, 16000, new Float32Array(Math.ceil(quiet.length / 512)));
    expect(r.kind).toBe('no-speech');
  });

  test('rejects audio that is not 16 kHz, naming the field', () => {
    expect(() => diarizeMix(new Float32Array(100), 44100, new Float32Array(1))).toThrow(/sampleRate/);
  });
});

describe('mergeSpeakerLabels', () => {
  test('the merged speaker keeps one label in range whichever side of the removed one it is', () => {
    expect([...mergeSpeakerLabels(Int32Array.of(0, 1, 2, 3), 3, 1)]).toEqual([0, 2, 1, 2]);
    expect([...mergeSpeakerLabels(Int32Array.of(0, 1, 2, 3), 0, 2)]).toEqual([0, 1, 0, 2]);
    expect([...mergeSpeakerLabels(Int32Array.of(2, 0, 1, -1), 2, 0)]).toEqual([1, 1, 0, -1]);
  });
});
