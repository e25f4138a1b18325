/**
 * The segmentation model slot end to end in Node: pyannote segmentation-3.0 (int8 ONNX, from
 * ../shared/models, never copied into the repository) gives diarizeMix its overlap
 * probabilities and local speakers on pyannote's own sample, whose RTTM truth has overlapped
 * speech and short turns. Skipped, saying why, when the model or the sample is absent.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { diarizationErrorRate } from '../../../src/analysis/diarize/der.ts';
import { diarizeMix } from '../../../src/analysis/diarize/mix.ts';
import type { Turn } from '../../../src/contract/types.ts';
import type { PyannoteSegmentation } from '../../../src/models/segmentation.ts';
import type { SileroVad } from '../../../src/models/silero-vad.ts';
import { loadMono16k } from '../../../tools/diarization/audio.ts';
import { readRttm } from '../../../tools/diarization/rttm.ts';
import { createNodeSegmentation, createNodeVad, SEGMENTATION_MODEL_PATH } from '../../../tools/diarization/vad-node.ts';

const SAMPLE_WAV = '/work/shared/data/pyannote/sample.wav';
const SAMPLE_RTTM = '/work/shared/data/pyannote/sample.rttm';
const missing = [SEGMENTATION_MODEL_PATH, SAMPLE_WAV, SAMPLE_RTTM].filter((p) => !existsSync(p));
if (missing.length > 0)
  console.warn(
    `[segmentation] skipped: ${missing.join(', ')} not found (the host-supplied model and pyannote's sample live outside the repository)`,
  );

/** ms (on a 10 ms grid) where two or more of `turns` are active, as [start, end) runs. */
function overlapMask(turns: readonly Turn[], lengthMs: number): Uint8Array {
  const mask = new Uint8Array(Math.ceil(lengthMs / 10));
  for (let i = 0; i < mask.length; i++) {
    const t = i * 10;
    let active = 0;
    for (const turn of turns) if (turn.startMs <= t && t < turn.endMs) active++;
    mask[i] = active > 1 ? 1 : 0;
  }
  return mask;
}

describe.skipIf(missing.length > 0)('pyannote segmentation-3.0 in the segmentation slot of diarizeMix', () => {
  let vad: SileroVad;
  let segmentation: PyannoteSegmentation;
  let samples: Float32Array;
  let probs: Float32Array;
  beforeAll(async () => {
    vad = await createNodeVad(1);
    segmentation = (await createNodeSegmentation(1))!;
    samples = loadMono16k(SAMPLE_WAV).samples;
    probs = await vad.speechProbabilities(samples);
  }, 60_000);
  afterAll(async () => {
    await vad?.dispose();
    await segmentation?.dispose();
  });

  test('finds overlapped speech where the truth has it; without the model there is none', async () => {
    const lengthMs = (samples.length / 16000) * 1000;
    const truth = overlapMask(readRttm(SAMPLE_RTTM), lengthMs);
    const overlap = await segmentation.overlapProbabilities(samples);
    expect(overlap.values.length * overlap.frameMs).toBeGreaterThanOrEqual(lengthMs - 1);

    const plain = diarizeMix(samples, 16000, probs);
    if (plain.kind !== 'speakers') throw new Error(`expected speakers, got ${plain.kind}`);
    expect(overlapMask(plain.turns, lengthMs).some((x) => x === 1)).toBe(false);

    const withModel = diarizeMix(samples, 16000, probs, { overlap });
    if (withModel.kind !== 'speakers') throw new Error(`expected speakers, got ${withModel.kind}`);
    expect(withModel.speakers.length).toBe(2);
    const found = overlapMask(withModel.turns, lengthMs);
    let foundMs = 0;
    let hitMs = 0;
    let truthMs = 0;
    for (let i = 0; i < found.length; i++) {
      foundMs += found[i]! * 10;
      hitMs += found[i]! & truth[i]! ? 10 : 0;
      truthMs += truth[i]! * 10;
    }
    console.log(
      `[segmentation] overlap found ${foundMs} ms, ${hitMs} ms of it in the truth's ${truthMs} ms of overlap`,
    );
    expect(foundMs).toBeGreaterThan(300);
    // Most of what it marks is real overlap.
    expect(hitMs / foundMs).toBeGreaterThan(0.4);
  });

  test('its local speakers fix the count and the short turns: sample.wav DER ≤ 15 % on the default seed and on most of seeds 1–8', async () => {
    const truth = readRttm(SAMPLE_RTTM);
    const { local } = await segmentation.localSpeakers(samples);
    const ders: number[] = [];
    const counts: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const r = diarizeMix(samples, 16000, probs, { seed, localSpeakers: local });
      if (r.kind !== 'speakers') throw new Error(`expected speakers, got ${r.kind}`);
      counts.push(r.speakers.length);
      ders.push(diarizationErrorRate(truth, r.turns).der);
    }
    console.log(
      `[segmentation] sample.wav with local speakers, seeds 1–8: DER ${ders.map((d) => (100 * d).toFixed(1)).join(' ')} %`,
    );
    expect(counts).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
    // Without the model 1 seed of 8 gets ≤ 15 % and 4 of 8 count two speakers.
    expect(ders.filter((d) => d <= 0.15).length).toBeGreaterThanOrEqual(6);
    expect(ders[0]).toBeLessThanOrEqual(0.15);
  });
});
