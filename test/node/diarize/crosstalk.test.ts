import { describe, expect, test } from 'vitest';
import {
  cancelCrosstalk,
  cancelCrosstalkBlocks,
  crosstalkResiduals,
  learnCrosstalk,
} from '../../../src/analysis/diarize/crosstalk.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import { readerDouble } from '../../support/reader-double.ts';

const RATE = 16000;
const HOP = 512;

/** Seeded noise-like "voice" of rms `db` dBFS where `on(t)` (seconds), silence elsewhere. */
function voice(seconds: number, seed: number, db: number, on: (t: number) => boolean): Float32Array {
  const rand = seededRandom(seed);
  const amp = 10 ** (db / 20) * Math.sqrt(3);
  return Float32Array.from({ length: seconds * RATE }, (_, i) => (on(i / RATE) ? amp * (2 * rand() - 1) : 0));
}

function levelDb(x: Float32Array, fromS: number, toS: number): number {
  let e = 0;
  for (let i = Math.round(fromS * RATE); i < Math.round(toS * RATE); i++) e += x[i]! ** 2;
  return 10 * Math.log10(e / ((toS - fromS) * RATE) + 1e-12);
}

/** `a` plus `gain` × `b` delayed by `delay` samples. */
function plusBleed(a: Float32Array, b: Float32Array, gain: number, delay: number): Float32Array {
  return a.map((v, i) => v + (i >= delay ? gain * b[i - delay]! : 0));
}

/** Per frame of HOP samples: 1 where `on(t)` holds over the whole frame. */
function frameMask(seconds: number, on: (t: number) => boolean): Uint8Array {
  return Uint8Array.from({ length: Math.ceil((seconds * RATE) / HOP) }, (_, m) =>
    on((m * HOP) / RATE) && on(((m + 1) * HOP - 1) / RATE) ? 1 : 0,
  );
}

/**
 * 20 s of three talkers (seeded from `seed`), each mic hearing the next one's voice late: A
 * talks to 12 s, B from 8 s, C from 4 to 15 s; each mic learns where its own talker is silent.
 */
function threeTalkers(seed: number): { mics: Float32Array[]; learn: Uint8Array[] } {
  const seconds = 20;
  const a = voice(seconds, seed, -20, (t) => t < 12);
  const b = voice(seconds, seed + 1, -26, (t) => t >= 8);
  const c = voice(seconds, seed + 2, -23, (t) => t >= 4 && t < 15);
  return {
    mics: [plusBleed(a, b, 0.3, 30), plusBleed(b, c, 0.3, 10), plusBleed(c, a, 0.2, 20)],
    learn: [frameMask(seconds, (t) => t >= 12), frameMask(seconds, (t) => t < 8), frameMask(seconds, (t) => t >= 15)],
  };
}

describe('cancelCrosstalk', () => {
  // A talks 0–6 s; B talks 4–8 s (over A from 4 to 6 s). Each mic hears the other 10 dB
  // down, 2.5 ms late on A's mic (the path from B) and 1.25 ms late on B's.
  const seconds = 8;
  const a = voice(seconds, 1, -20, (t) => t < 6);
  const b = voice(seconds, 2, -28, (t) => t >= 4);
  const micA = plusBleed(a, b, 10 ** (-10 / 20), 40);
  const micB = plusBleed(b, a, 10 ** (-10 / 20), 20);
  // Where each mic carries only the other's voice: B's mic while A talks alone, and A's while B does.
  const learn = [frameMask(seconds, (t) => t >= 6.1), frameMask(seconds, (t) => t < 3.9)];

  test('takes the neighbour out where a mic hears only bleed, and keeps the voice a neighbour talks over', () => {
    const [resA, resB] = cancelCrosstalk([micA, micB], HOP, learn);
    // Bleed alone: B's mic while A talks alone, −30 dBFS before, more than 25 dB less after.
    expect(levelDb(micB, 1, 3.5)).toBeCloseTo(-30, 0);
    expect(levelDb(resB!, 1, 3.5)).toBeLessThan(levelDb(micB, 1, 3.5) - 25);
    // In the overlap B's mic is B plus A's bleed (−30 dBFS), 2 dB over B alone; what is left is B.
    expect(levelDb(micB, 4.5, 5.5) - levelDb(b, 4.5, 5.5)).toBeGreaterThan(1.9);
    let err = 0;
    for (let i = 4.5 * RATE; i < 5.5 * RATE; i++) err += (resB![i]! - b[i]!) ** 2;
    // The residual differs from B by A's bleed of B's bleed (−20 dB) cancelled with it.
    expect(10 * Math.log10(err / RATE) - levelDb(b, 4.5, 5.5)).toBeLessThan(-15);
    // A's mic keeps A where B talks over it, and loses B's bleed where B talks alone.
    expect(Math.abs(levelDb(resA!, 4.5, 5.5) - levelDb(a, 4.5, 5.5))).toBeLessThan(0.5);
    expect(levelDb(resA!, 6.5, 7.5)).toBeLessThan(levelDb(micA, 6.5, 7.5) - 25);
  });

  test('on more frames than maxLearnFrames, learns on every k-th of them and still cancels', () => {
    // B's mic has 121 bleed-only frames, A's 58: a stride of 7 leaves 17 and 8 (about 20 at most).
    const full = cancelCrosstalk([micA, micB], HOP, learn);
    const thinned = cancelCrosstalk([micA, micB], HOP, learn, { maxLearnFrames: 20 });
    expect(levelDb(thinned[1]!, 1, 3.5)).toBeLessThan(levelDb(micB, 1, 3.5) - 20);
    expect(levelDb(thinned[0]!, 6.5, 7.5)).toBeLessThan(levelDb(micA, 6.5, 7.5) - 20);
    // Fewer frames, another fit: the thinning acted.
    let diff = 0;
    for (let i = 0; i < micB.length; i++) diff = Math.max(diff, Math.abs(thinned[1]![i]! - full[1]![i]!));
    expect(diff).toBeGreaterThan(1e-6);
    // With room for every frame, nothing is thinned.
    expect(cancelCrosstalk([micA, micB], HOP, learn, { maxLearnFrames: 121 })).toEqual(full);
  });

  test('with nothing to learn from, gives the signals back', () => {
    const none = [new Uint8Array(learn[0]!.length), new Uint8Array(learn[1]!.length)];
    const out = cancelCrosstalk([micA, micB, micA.subarray(0, 3 * RATE)], HOP, [...none, new Uint8Array(10)]);
    expect(out.map((o) => o.length)).toEqual([micA.length, micB.length, 3 * RATE]);
    let worst = 0;
    for (let i = 0; i < micA.length; i++)
      worst = Math.max(worst, Math.abs(out[0]![i]! - micA[i]!), Math.abs(out[1]![i]! - micB[i]!));
    expect(worst).toBeLessThan(1e-6);
  });

  test('names what is wrong with its arguments', () => {
    expect(() => cancelCrosstalk([micA, micB], HOP, [learn[0]!])).toThrow(/1 masks for 2 channels/);
    expect(() => cancelCrosstalk([micA, micB], 511, learn)).toThrow(/hop 511/);
    expect(() => cancelCrosstalk([micA, micB], HOP, learn, { maxLearnFrames: 0 })).toThrow(/maxLearnFrames 0/);
    expect(cancelCrosstalk([micA], HOP, [learn[0]!])[0]).toEqual(micA);
  });
});

describe('cancelCrosstalkBlocks', () => {
  test('hands on the residuals in consecutive bounded blocks that join into cancelCrosstalk', () => {
    // 20 s: longer than the block it holds (65536 samples), channels of unequal length.
    const seconds = 20;
    const a = voice(seconds, 3, -20, (t) => t < 12);
    const b = voice(seconds, 4, -26, (t) => t >= 8);
    const mics = [plusBleed(a, b, 0.3, 30), plusBleed(b, a, 0.3, 10).subarray(0, seconds * RATE - 1000)];
    const learn = [frameMask(seconds, (t) => t >= 12), frameMask(seconds, (t) => t < 8)];
    const whole = cancelCrosstalk(mics, HOP, learn);
    const joined = mics.map((m) => new Float32Array(m.length));
    let next = 0;
    let largest = 0;
    cancelCrosstalkBlocks(mics, HOP, learn, (start, blocks) => {
      expect(start).toBe(next);
      blocks.forEach((block, i) => joined[i]!.set(block, start));
      next = start + blocks[0]!.length;
      largest = Math.max(largest, ...blocks.map((block) => block.length));
    });
    expect(next).toBe(mics[0]!.length);
    expect(largest).toBeLessThanOrEqual(65536 + 2 * HOP);
    expect(joined).toEqual(whole);
  });

  test('in ranges, on arrays that start late, joins into the whole pass to the bit', () => {
    const { mics, learn } = threeTalkers(5);
    const whole = cancelCrosstalk(mics, HOP, learn);
    const weights = learnCrosstalk(mics, HOP, learn);
    const joined = mics.map((m) => new Float32Array(m.length));
    // Cut points off the frame grid, the last range without a `to`.
    const cuts = [0, 70_001, 150_000, 200_256];
    cuts.forEach((from, k) => {
      const to = cuts[k + 1];
      const origin = Math.max(0, from - 2 * HOP);
      let next = from;
      crosstalkResiduals(
        mics.map((m) => m.slice(origin)),
        weights,
        (start, blocks) => {
          expect(start).toBe(next);
          blocks.forEach((block, i) => joined[i]!.set(block, start));
          next = start + blocks[0]!.length;
        },
        { from, origin, ...(to === undefined ? {} : { to }) },
      );
      expect(next).toBe(to ?? mics[0]!.length);
    });
    expect(joined).toEqual(whole);
    // Arrays that start after the first frame reaching `from` are refused.
    expect(() => crosstalkResiduals(mics, weights, () => undefined, { from: 5000, origin: 4500 })).toThrow(
      /start at 4500/,
    );
  });

  test('the fit learnt from channels read by range (files, test double) is the same, reading only the frames it uses', () => {
    const { mics, learn } = threeTalkers(8);
    const files = mics.map((m) => readerDouble(m.slice()));
    expect(learnCrosstalk(files, HOP, learn)).toEqual(learnCrosstalk(mics, HOP, learn));
    // Thinned to every 20th frame or so: each frame read on its own, its 2 · hop window.
    const sparse = mics.map((m) => readerDouble(m.slice()));
    expect(learnCrosstalk(sparse, HOP, learn, { maxLearnFrames: 20 })).toEqual(
      learnCrosstalk(mics, HOP, learn, { maxLearnFrames: 20 }),
    );
    expect(Math.max(...sparse.map((f) => f.largest))).toBe(2 * HOP);
  });
});
