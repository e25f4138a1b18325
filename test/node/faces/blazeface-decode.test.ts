import { describe, expect, it } from 'vitest';
import {
  BLAZEFACE_SIZE,
  decodeBlazeFace,
  frameTiles,
  mergeTileDetections,
  MOUTH_KEYPOINT,
  overlap,
  weightedNms,
  type BlazeFaceOutputs,
  type FaceDetection,
} from '../../../src/analysis/faces/blazeface-decode.ts';

/** Empty model outputs (every logit −10), with anchors set by `put`. */
function outputs(): BlazeFaceOutputs & {
  put(grid: 16 | 8, cell: [number, number], anchor: number, logit: number, box: number[]): void;
} {
  const o = {
    scores16: new Float32Array(512).fill(-10),
    boxes16: new Float32Array(512 * 16),
    scores8: new Float32Array(384).fill(-10),
    boxes8: new Float32Array(384 * 16),
    put(grid: 16 | 8, [cx, cy]: [number, number], anchor: number, logit: number, box: number[]) {
      const per = grid === 16 ? 2 : 6;
      const i = (cy * grid + cx) * per + anchor;
      (grid === 16 ? o.scores16 : o.scores8)[i] = logit;
      (grid === 16 ? o.boxes16 : o.boxes8).set(box, i * 16);
    },
  };
  return o;
}

describe('decodeBlazeFace', () => {
  it('places a box and its keypoints relative to its anchor cell, in fractions of the input', () => {
    const o = outputs();
    // 8×8 grid cell (3, 4): centre (3.5/8, 4.5/8). Offsets are input pixels.
    const box = [6.4, -3.2, 32, 40, ...Array.from({ length: 12 }, (_, k) => (k % 2 ? 12.8 : -6.4))];
    o.put(8, [3, 4], 2, 3, box);
    const [face, ...rest] = decodeBlazeFace(o);
    expect(rest).toEqual([]);
    expect(face!.score).toBeCloseTo(1 / (1 + Math.exp(-3)), 6);
    expect(face!.cx).toBeCloseTo(3.5 / 8 + 6.4 / BLAZEFACE_SIZE, 6);
    expect(face!.cy).toBeCloseTo(4.5 / 8 - 3.2 / BLAZEFACE_SIZE, 6);
    expect(face!.w).toBeCloseTo(32 / BLAZEFACE_SIZE, 6);
    expect(face!.h).toBeCloseTo(40 / BLAZEFACE_SIZE, 6);
    expect(face!.keypoints[MOUTH_KEYPOINT]![0]).toBeCloseTo(3.5 / 8 - 6.4 / BLAZEFACE_SIZE, 6);
    expect(face!.keypoints[MOUTH_KEYPOINT]![1]).toBeCloseTo(4.5 / 8 + 12.8 / BLAZEFACE_SIZE, 6);
  });

  it('keeps anchors above the threshold only, and merges overlapping ones weighted by score', () => {
    const o = outputs();
    const box = (dx: number): number[] => [dx, 0, 30, 30, ...new Array<number>(12).fill(0)];
    o.put(16, [8, 8], 0, 4, box(0)); // score 0.982
    o.put(16, [8, 8], 1, 0, box(4)); // score 0.5: merged
    o.put(16, [2, 2], 0, -1, box(0)); // score 0.27: below 0.6
    const faces = decodeBlazeFace(o, { threshold: 0.4 });
    expect(faces).toHaveLength(1);
    const s1 = 1 / (1 + Math.exp(-4));
    const s2 = 0.5;
    expect(faces[0]!.score).toBeCloseTo(s1, 6);
    expect(faces[0]!.cx).toBeCloseTo(8.5 / 16 + (4 * s2) / (s1 + s2) / BLAZEFACE_SIZE, 6);
    expect(decodeBlazeFace(o, { threshold: 0.6 })).toHaveLength(1);
    expect(decodeBlazeFace(o, { threshold: 0.99 })).toHaveLength(0);
  });

  it('refuses outputs of the wrong size, naming the grid', () => {
    const o = outputs();
    expect(() => decodeBlazeFace({ ...o, scores8: new Float32Array(10) })).toThrow(/8×8 grid: 10 scores/);
  });
});

const face = (cx: number, cy: number, w: number, score = 0.9): FaceDetection => ({
  score,
  cx,
  cy,
  w,
  h: w,
  keypoints: Array.from({ length: 6 }, () => [cx, cy] as [number, number]),
});

describe('weightedNms and overlap', () => {
  it('keeps faces apart and merges the same face', () => {
    expect(overlap(face(0.5, 0.5, 0.2), face(0.5, 0.5, 0.2))).toBeCloseTo(1, 9);
    expect(overlap(face(0.2, 0.5, 0.1), face(0.8, 0.5, 0.1))).toBe(0);
    const out = weightedNms([face(0.2, 0.5, 0.1), face(0.21, 0.5, 0.1, 0.8), face(0.8, 0.5, 0.1)], 0.3);
    expect(out).toHaveLength(2);
  });
});

describe('frameTiles and mergeTileDetections', () => {
  it('covers a 16:9 frame with three full-height squares and a square frame with one', () => {
    expect(frameTiles(1920, 1080)).toEqual([
      { x: 0, y: 0, side: 1080 },
      { x: 420, y: 0, side: 1080 },
      { x: 840, y: 0, side: 1080 },
    ]);
    expect(frameTiles(500, 500)).toEqual([{ x: 0, y: 0, side: 500 }]);
    expect(frameTiles(1080, 1920)).toHaveLength(3);
  });

  it('maps tile detections to the frame, drops faces cut by an inner tile edge, and merges the rest', () => {
    const tiles = frameTiles(1920, 1080);
    // A face at frame x = 960 px seen whole by the centre tile, whole by the left tile (at its
    // x = 960/1080), and cut at the right edge... of none; a second face cut by the left tile's right edge.
    const whole = { tile: tiles[1]!, faces: [face(540 / 1080, 0.5, 0.2)] };
    const left = { tile: tiles[0]!, faces: [face(960 / 1080, 0.5, 0.2, 0.8), face(1070 / 1080, 0.5, 0.1)] };
    const merged = mergeTileDetections([whole, left], 1920, 1080);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.cx).toBeCloseTo(960 / 1920, 6);
    expect(merged[0]!.w).toBeCloseTo((0.2 * 1080) / 1920, 6);
    expect(merged[0]!.h).toBeCloseTo(0.2, 6);
  });
});
