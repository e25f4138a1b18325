import { describe, expect, it } from 'vitest';
import {
  facesToReference,
  trackFaces,
  type FaceRun,
  type FaceRunFace,
} from '../../../src/analysis/faces/face-tracks.ts';

function seen(cx: number, t0: number, mouth: number, score = 0.9): FaceRunFace {
  const t = Array.from({ length: 4 }, (_, i) => t0 + 40 * (i + 1));
  return {
    score,
    cx,
    cy: 0.5,
    w: 0.1,
    h: 0.1,
    mx: cx,
    my: 0.55,
    t,
    mouth: t.map(() => mouth),
  };
}

describe('trackFaces', () => {
  it('follows each person across runs, left to right, with their mouth motion as one series', () => {
    const runs: FaceRun[] = Array.from({ length: 10 }, (_, k) => ({
      t: k * 6000,
      faces: [seen(0.8 + (k % 2) * 0.01, k * 6000, 1), seen(0.2, k * 6000, k % 2 ? 3 : 0.5)],
    }));
    const { tracks, runs: n, unsteadyRuns } = trackFaces(runs);
    expect(n).toBe(10);
    expect(unsteadyRuns).toBe(0);
    expect(tracks.map((t) => Math.round(t.cx * 10))).toEqual([2, 8]);
    expect(tracks[0]!.presence).toBe(1);
    expect(tracks[0]!.t).toHaveLength(40);
    expect(tracks[0]!.activity[0]).toBeCloseTo(0.5, 6);
    expect(tracks[0]!.activity[4]).toBeCloseTo(3, 6);
    expect(Array.from(tracks[0]!.t).every((x, i, a) => i === 0 || x > a[i - 1]!)).toBe(true);
  });

  it('leaves out faces seen in too few runs, and counts runs whose number of faces is off', () => {
    const runs: FaceRun[] = Array.from({ length: 10 }, (_, k) => ({
      t: k * 1000,
      faces: k === 3 ? [seen(0.5, k * 1000, 1), seen(0.1, k * 1000, 1)] : k === 7 ? [] : [seen(0.5, k * 1000, 1)],
    }));
    const { tracks, unsteadyRuns } = trackFaces(runs);
    expect(tracks).toHaveLength(1);
    expect(tracks[0]!.presence).toBeCloseTo(0.9, 9);
    expect(unsteadyRuns).toBe(2);
  });

  it('moves track times to the reference timeline', () => {
    const { tracks, ...rest } = trackFaces([{ t: 0, faces: [seen(0.5, 0, 1)] }]);
    const moved = facesToReference({ tracks, ...rest }, 1500);
    expect(Array.from(moved.tracks[0]!.t)).toEqual([1540, 1580, 1620, 1660]);
    expect(Array.from(tracks[0]!.t)).toEqual([40, 80, 120, 160]);
  });
});
