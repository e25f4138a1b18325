import { describe, expect, test } from 'vitest';
import {
  cameraToReferenceMs,
  motionFeatures,
  samplesToReference,
  type LumaFrame,
} from '../../../src/analysis/camera/features.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

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

/** Frames of `runs` sampled runs of 15 consecutive frames (40 ms apart), one run every 2 s. */
function sampledRuns(runs: number, draw: (run: number, frame: number, luma: Uint8Array) => void): LumaFrame[] {
  const out: LumaFrame[] = [];
  for (let r = 0; r < runs; r++)
    for (let f = 0; f < 15; f++) {
      const luma = new Uint8Array(W * H);
      draw(r, f, luma);
      out.push({ t: r * 2000 + f * 40, luma, width: W, height: H });
    }
  return out;
}

function fill(luma: Uint8Array, x0: number, y0: number, x1: number, y1: number, v: number): void {
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) luma[y * W + x] = v;
}

/** A level meter on a flat background: 16 segments across columns 8–40, lit to `level` (0..1). */
function meter(luma: Uint8Array, level: number): void {
  luma.fill(60);
  const lit = Math.round(level * 16);
  for (let k = 0; k < 16; k++) fill(luma, 8 + 2 * k, 10, 9 + 2 * k, 17, k < lit ? 230 : 80);
}

describe('motionFeatures: a display that lights up is not a cut (issue 51)', () => {
  const rnd = seededRandom(5);
  // Runs alternate between silence and speech; while speaking, the level jumps frame to frame.
  const speaking = Array.from({ length: 40 }, () => rnd() < 0.5);
  // A syllable's loudness every 5 frames (200 ms), some of them the pause between two words; the
  // meter's ballistics move the lit segments toward it by at most 6 a frame up and 4 down.
  const levels = speaking.map((s) => {
    const syllables = Array.from({ length: 3 }, () => (s && rnd() < 0.75 ? 0.3 + 0.7 * rnd() : 0));
    let lit = s ? Math.round(16 * rnd()) : 0;
    return Array.from({ length: 15 }, (_, f) => {
      const target = Math.round(16 * syllables[Math.floor(f / 5)]!);
      lit = target > lit ? Math.min(target, lit + 6) : Math.max(target, lit - 4);
      return lit / 16;
    });
  });

  test('a level meter following speech gives no cut, though its level jumps between runs', () => {
    const frames = sampledRuns(40, (r, f, luma) => meter(luma, levels[r]![f]!));
    // The histogram alone reads its jumps as cuts (what issue 51 found on the long set)...
    expect(motionFeatures(frames, { cutUnusualShare: 0 }).sceneCut.some((x) => x === 1)).toBe(true);
    // ...but they change only the meter's box, which changes as much inside every spoken run.
    const s = motionFeatures(frames);
    expect(s.sceneCut.every((x) => x === 0)).toBe(true);
    // The meter's motion is kept as motion: it is the speech the camera map correlates.
    expect(Math.max(...s.whole)).toBeGreaterThan(2);
  });

  test('a scrolling display, still between words and full after them, gives no cut between runs', () => {
    // Bars scroll one column a frame; each run starts from what 2 s of speech or silence left.
    const frames = sampledRuns(40, (r, f, luma) => {
      luma.fill(60);
      for (let x = 0; x < 32; x++) {
        const back = 31 - x - f;
        const lv = back < 0 ? (levels[r]![Math.min(14, -back)] ?? 0) : speaking[r] ? 0.5 + 0.5 * Math.sin(back + r) : 0;
        const half = Math.round(Math.abs(lv) * 8);
        fill(luma, 8 + x, 13 - half, 9 + x, 14 + half, 220);
      }
    });
    expect(motionFeatures(frames, { cutUnusualShare: 0 }).sceneCut.some((x) => x === 1)).toBe(true);
    expect(motionFeatures(frames).sceneCut.every((x) => x === 0)).toBe(true);
  });

  test("a switched feed's cuts are still found, between runs and inside them", () => {
    // Two shots with their own background and a face whose mouth moves; the shot changes every
    // 3 s, so some cuts fall between runs and some inside one.
    const shotAt = (t: number): number => Math.floor(t / 3000) % 2;
    const frames = sampledRuns(30, (r, f, luma) => {
      const t = r * 2000 + f * 40;
      const shot = shotAt(t);
      luma.fill(shot ? 110 : 60);
      fill(luma, shot ? 26 : 10, 4, shot ? 42 : 24, 24, shot ? 200 : 170);
      fill(luma, shot ? 32 : 15, 17, shot ? 36 : 19, 17 + (f % 3), 40);
    });
    const s = motionFeatures(frames);
    const changes = frames.filter((fr, i) => i > 0 && shotAt(fr.t) !== shotAt(frames[i - 1]!.t)).map((fr) => fr.t);
    expect(changes.length).toBeGreaterThan(10);
    expect(Array.from(s.t).filter((_, i) => s.sceneCut[i])).toEqual(changes);
  });

  test('shots that differ only where the face is (same background) still cut: the face changes more than it ever moves', () => {
    const shotAt = (t: number): number => Math.floor(t / 3000) % 2;
    const frames = sampledRuns(30, (r, f, luma) => {
      const shot = shotAt(r * 2000 + f * 40);
      luma.fill(60);
      fill(luma, 16, 4, 32, 24, shot ? 120 : 200);
      fill(luma, 22, 17, 26, 17 + (f % 3), shot ? 90 : 170);
    });
    const s = motionFeatures(frames);
    const changes = frames.filter((fr, i) => i > 0 && shotAt(fr.t) !== shotAt(frames[i - 1]!.t)).length;
    expect(s.sceneCut.reduce((a, x) => a + x, 0)).toBe(changes);
  });
});
