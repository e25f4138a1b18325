/**
 * The LR-ASD slot on real people: the five GRID clips of ../shared/data/faces (3 s, 25 fps, one
 * speaker each), their faces found by BlazeFace, cropped and scored by LR-ASD
 * (../shared/models/lr-asd.onnx, never copied into the repository) on onnxruntime-web in Node.
 * Skipped where ../shared lacks the model or the clips; under CI=true the file fails instead.
 *
 * Measured once with all five (issue 50; not a test, the unit tier's time is short): LR-ASD
 * does not tell a face's own sentence from another person's here (own audio above the mean of the
 * others for 1–2 of 5 people): every GRID sentence has one shape (silence, six words, silence),
 * so another person's sentence is speech while this face's mouth moves. A frozen face scores far
 * below a moving one for all five (about −1.1 against +1.1…+2.4).
 *
 * Scoring uses the 3 s windows only: on a 3 s clip the demo's 3 to 6 s windows are all the
 * whole clip, and leaving out its 1 and 2 s passes keeps this file to a third of the model time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASD_CROP_SIZE } from '../../../src/analysis/faces/asd-features.ts';
import type { BlazeFace } from '../../../src/models/blazeface.ts';
import type { LrAsd } from '../../../src/models/lr-asd.ts';
import { createNodeBlazeFace } from '../../../tools/faces/blazeface-node.ts';
import { createNodeLrAsd, LR_ASD_MODEL_PATH } from '../../../tools/faces/lr-asd-node.ts';
import { GRID_CLIPS } from '../../../tools/fixtures/faces-set.ts';
import { patient } from '../../support/patience.ts';
import { requireFacesData, requireSharedData } from '../../support/shared-data.ts';
import { loadAsdClip, type AsdClip } from './asd-clips.ts';

// Absent here: skipped; absent where CI=true: the file fails naming what is missing.
const present = requireSharedData([LR_ASD_MODEL_PATH]) && requireFacesData();

const WINDOWS = { windowSeconds: [3] };

const mean = (x: Float32Array): number => x.reduce((a, b) => a + b, 0) / x.length;

describe.skipIf(!present)('LR-ASD on the GRID clips (skipped when ../shared lacks the model or the clips)', () => {
  let detector: BlazeFace;
  let asd: LrAsd;
  const clips: AsdClip[] = [];

  beforeAll(async () => {
    detector = await createNodeBlazeFace();
    asd = (await createNodeLrAsd(1))!;
    // Two of the five people (the unit tier's time is short); BlazeFace every 5th frame, linear
    // between: GRID's faces hardly move.
    for (const name of GRID_CLIPS.slice(0, 2)) clips.push(await loadAsdClip(name, detector, 5));
  }, patient(120_000));

  afterAll(async () => {
    await detector?.dispose();
    await asd?.dispose();
  });

  it('finds the face in every clip: 75 frames and 297 MFCC frames (2.95 s of sound) each', () => {
    for (const clip of clips) {
      expect(clip.missed).toBe(0);
      expect(clip.frames).toBe(75);
      expect(clip.mfcc.frames).toBe(297);
    }
  });

  it('scores a frozen face (one frame repeated) below the moving face, with the person’s own audio', async () => {
    const size = ASD_CROP_SIZE * ASD_CROP_SIZE;
    for (const clip of clips) {
      const moving = await asd.scoreTrack(clip.mfcc, clip.crops, WINDOWS);
      expect(moving.every(Number.isFinite)).toBe(true);
      // The middle frame, mid-sentence.
      const still = clip.crops.subarray(37 * size, 38 * size);
      const frozen = new Float32Array(clip.crops.length);
      for (let i = 0; i < clip.frames; i++) frozen.set(still, i * size);
      const frozenScore = mean(await asd.scoreTrack(clip.mfcc, frozen, WINDOWS));
      console.log(`[lr-asd] ${clip.name}: moving ${mean(moving).toFixed(2)}, frozen ${frozenScore.toFixed(2)}`);
      expect(frozenScore, clip.name).toBeLessThan(mean(moving));
    }
  });
});
