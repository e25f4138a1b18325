import { describe, expect, test } from 'vitest';
import {
  cameraToReferenceMs,
  motionFeatures,
  samplesToReference,
  type LumaFrame,
} from '../../../src/analysis/camera/features.ts';

const W = 48;
const H = 27;

/** A grey frame with a bright 6×6 block at column `x` (or no block). */
function frame(t: number, x: number | null, grey = 60): LumaFrame {
  const luma = new Uint8Array(W * H).fill(grey);
  if (x !== null) for (let y = 10; y < 16; y++) for (let c = x; c < x + 6; c++) luma[y * W + c] = 220;
  return { t, luma, width: W, height: H };
}

describe('motionFeatures', () => {
  test('motion lands in the third where the picture moved', () => {
    const s = motionFeatures([frame(0, 2), frame(33, 6), frame(67, 2)]);
    expect(Array.from(s.t)).toEqual([33, 67]);
    expect(s.left[0]).toBeGreaterThan(5);
    expect(s.middle[0]).toBe(0);
    expect(s.right[0]).toBe(0);
    expect(s.whole[0]).toBeCloseTo(s.left[0]! / 3, 5);
    expect(Array.from(s.sceneCut)).toEqual([0, 0]);
  });

  test('frames are sorted, and a gap between runs gives no sample unless the picture changed completely', () => {
    const s = motionFeatures([frame(1033, 40), frame(0, 2), frame(1000, 40), frame(33, 4)]);
    expect(Array.from(s.t)).toEqual([33, 1033]);
    expect(s.right[1]).toBe(0);
    const cut = motionFeatures([
      frame(0, null, 60),
      frame(33, null, 60),
      frame(1000, null, 200),
      frame(1033, null, 200),
    ]);
    expect(Array.from(cut.t)).toEqual([33, 1000, 1033]);
    expect(Array.from(cut.sceneCut)).toEqual([0, 1, 0]);
  });

  test('a whole-frame change inside a run is a cut; the usual small motion is not', () => {
    const run = [0, 33, 67, 100, 133].map((t, i) => frame(t, i % 2 ? 2 : 3));
    const s = motionFeatures([...run, frame(167, 2, 160)]);
    expect(Array.from(s.sceneCut)).toEqual([0, 0, 0, 0, 1]);
    expect(s.whole[4]).toBeGreaterThan(90);
  });

  test('a near-frozen camera does not cut on a one-level flicker', () => {
    const s = motionFeatures([frame(0, null, 60), frame(33, null, 60), frame(67, null, 61)]);
    expect(Array.from(s.sceneCut)).toEqual([0, 0]);
  });

  test('a frozen picture has zero motion', () => {
    const s = motionFeatures([frame(0, 20), frame(33, 20), frame(67, 20)]);
    expect(Math.max(...s.whole)).toBe(0);
  });

  test('frames of different sizes are refused, naming the frame', () => {
    expect(() => motionFeatures([frame(0, 2), { t: 33, luma: new Uint8Array(10), width: 5, height: 2 }])).toThrow(
      /frames\[1\]/,
    );
  });
});

describe('camera time to reference time', () => {
  test('offset and drift follow cameraMs = (referenceMs - offsetMs) * (1 + driftPpm·1e-6)', () => {
    const ref = cameraToReferenceMs(1_000_000, 2500, 100);
    expect((ref - 2500) * (1 + 100e-6)).toBeCloseTo(1_000_000, 6);
    const s = samplesToReference(motionFeatures([frame(0, 2), frame(33, 6)]), 500);
    expect(Array.from(s.t)).toEqual([533]);
  });
});
