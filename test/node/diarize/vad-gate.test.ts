/**
 * The VAD's energy gate (src/analysis/speech/vad-gate.ts): what it keeps around loud frames, what it
 * skips at the floor, and that probabilities land back on their own frames.
 */
import { describe, expect, test } from 'vitest';
import type { SampleReader } from '../../../src/analysis/signal/sample-reader.ts';
import { resample } from '../../../src/analysis/signal/signal-resample.ts';
import {
  BLEED_GATE_MARGIN_DB,
  closeMicStretches,
  creditBleedFrames,
  gatedStretches,
  JOINT_GAP_FRAMES,
  type GatedStretches,
  joinedLength,
  joinStretches,
  joinStretchesTo,
  spreadProbabilities,
} from '../../../src/analysis/speech/vad-gate.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

const FRAME = 512;

/** Noise at −60 dBFS for `frames` frames, with loud frames (−20 dBFS) at `loud`. */
function signal(frames: number, loud: Array<[number, number]>): Float32Array {
  const r = seededRandom(5);
  const x = new Float32Array(frames * FRAME);
  for (let i = 0; i < x.length; i++) x[i] = (r() * 2 - 1) * 1.7e-3;
  for (const [a, b] of loud) for (let i = a * FRAME; i < b * FRAME; i++) x[i] = (r() * 2 - 1) * 0.17;
  return x;
}

/** Stretches across a reader's pieces (2048 frames each), one running past the signal's end. */
function acrossPieces(): Float32Array {
  return signal(5000, [
    [2000, 2100],
    [4090, 4200],
    [4990, 5000],
  ]).subarray(0, 4999 * FRAME + 100);
}

describe('the VAD energy gate', () => {
  test('keeps the loud frames with 16 frames either side, joins close stretches, skips the floor', () => {
    const x = signal(1000, [
      [100, 150],
      [170, 200], // 20 quiet frames from the first: padded, they touch
      [600, 610],
    ]);
    const gated = gatedStretches(x, FRAME);
    expect(gated.frames).toBe(1000);
    expect(gated.keep).toEqual([
      { start: 84, end: 216 },
      { start: 584, end: 626 },
    ]);
    const joined = joinStretches(x, FRAME, gated);
    expect(gated.gap).toBe(JOINT_GAP_FRAMES);
    expect(joined.length).toBe((132 + JOINT_GAP_FRAMES + 42) * FRAME);
    // The joined signal is the kept frames, in order, with silence between stretches.
    expect(joined.subarray(0, FRAME)).toEqual(x.subarray(84 * FRAME, 85 * FRAME));
    expect(joined.subarray(132 * FRAME, (132 + JOINT_GAP_FRAMES) * FRAME).every((v) => v === 0)).toBe(true);
    const second = (132 + JOINT_GAP_FRAMES) * FRAME;
    expect(joined.subarray(second, second + FRAME)).toEqual(x.subarray(584 * FRAME, 585 * FRAME));
    // Asked for no gap: back to back.
    const tight = gatedStretches(x, FRAME, { jointGapFrames: 0 });
    expect(tight.keep).toEqual(gated.keep);
    expect(joinStretches(x, FRAME, tight).length).toBe((132 + 42) * FRAME);
  });

  test('joined at another rate: the same samples as resampling the joined signal, without that copy', () => {
    const x = signal(1000, [
      [100, 150],
      [600, 610],
    ]);
    // The last stretch runs past the signal's end: it is joined with zeros.
    const cut = x.subarray(0, 620 * FRAME + 7);
    const gated = gatedStretches(cut, FRAME);
    expect(gated.keep.at(-1)!.end * FRAME).toBeGreaterThan(cut.length);
    expect(joinStretches(cut, FRAME, gated, { from: 16000, to: 8000 })).toEqual(
      resample(joinStretches(cut, FRAME, gated), 16000, 8000),
    );
    expect(joinStretches(cut, FRAME, gated, { from: 16000, to: 16000 })).toEqual(joinStretches(cut, FRAME, gated));
  });

  test('read from a file piece by piece (test double): the same stretches and joined samples, no read past a piece', () => {
    const x = acrossPieces();
    let largest = 0;
    const fileDouble: SampleReader = {
      length: x.length,
      read(from, to) {
        largest = Math.max(largest, to - from);
        return x.slice(from, to); // a file gives copies
      },
    };
    const gated = gatedStretches(fileDouble, FRAME);
    expect(gated).toEqual(gatedStretches(x, FRAME));
    expect(gated.keep.length).toBe(3);
    expect(joinStretches(fileDouble, FRAME, gated)).toEqual(joinStretches(x, FRAME, gated));
    expect(joinStretches(fileDouble, FRAME, gated, { from: 16000, to: 8000 })).toEqual(
      joinStretches(x, FRAME, gated, { from: 16000, to: 8000 }),
    );
    expect(largest).toBeLessThanOrEqual(2048 * FRAME);
  });

  test('joined to a writer piece by piece: the same samples as the joined array', () => {
    const x = acrossPieces();
    const gated = gatedStretches(x, FRAME);
    for (const rates of [undefined, { from: 16000, to: 8000 }]) {
      const parts: Float32Array[] = [];
      joinStretchesTo(x, FRAME, gated, rates, (part) => parts.push(part.slice()));
      const joined = joinStretches(x, FRAME, gated, rates);
      expect(joinedLength(FRAME, gated, rates)).toBe(joined.length);
      expect(Float32Array.from(parts.flatMap((p) => [...p]))).toEqual(joined);
      expect(Math.max(...parts.map((p) => p.length))).toBeLessThanOrEqual(2048 * FRAME);
    }
  });

  test('probabilities of stretches joined with a gap go back to their frames; the gap’s are dropped', () => {
    const x = signal(300, [
      [50, 60],
      [200, 210],
    ]);
    const gated = gatedStretches(x, FRAME);
    expect(gated.keep).toEqual([
      { start: 34, end: 76 },
      { start: 184, end: 226 },
    ]);
    // One probability per joined frame: 42 kept, the gap, 42 kept.
    const probs = Float32Array.from({ length: 42 + JOINT_GAP_FRAMES + 42 }, (_, i) => (i + 1) / 1000);
    const spread = spreadProbabilities(probs, gated);
    expect(spread[75]).toBeCloseTo(42 / 1000, 6);
    expect(spread[184]).toBeCloseTo((43 + JOINT_GAP_FRAMES) / 1000, 6);
    expect(spread[225]).toBeCloseTo((84 + JOINT_GAP_FRAMES) / 1000, 6);
    expect(spread[100]).toBe(0);
  });

  test('probabilities go back to their frames; skipped frames are 0', () => {
    const x = signal(300, [[50, 60]]);
    const gated = gatedStretches(x, FRAME);
    const kept = gated.keep.reduce((n, s) => n + s.end - s.start, 0);
    const probs = Float32Array.from({ length: kept }, (_, i) => (i + 1) / 1000);
    const spread = spreadProbabilities(probs, gated);
    expect(spread.length).toBe(300);
    expect(spread[33]).toBe(0);
    expect(spread[34]).toBeCloseTo(1 / 1000, 6);
    expect(spread[75]).toBeCloseTo(42 / 1000, 6);
    expect(spread[76]).toBe(0);
  });

  test('a mic whose floor is loud (never quiet) is not gated; digital silence keeps nothing', () => {
    const busy = signal(200, [[0, 200]]);
    expect(gatedStretches(busy, FRAME).keep).toEqual([{ start: 0, end: 200 }]);
    expect(gatedStretches(new Float32Array(100 * FRAME), FRAME).keep).toEqual([]);
    expect(gatedStretches(new Float32Array(0), FRAME)).toEqual({ frames: 0, keep: [], gap: JOINT_GAP_FRAMES });
  });

  test('close mics: a mic carrying only its neighbour’s bleed is skipped there, both kept where both talk', () => {
    // 300 frames (9.6 s): A talks in frames 20–80, B in 120–180, both in 220–260; each mic hears
    // the other 16 dB down over its own hiss (−60 dBFS).
    const r = seededRandom(9);
    const voiceOf = (ranges: Array<[number, number]>): Float32Array => {
      const x = new Float32Array(300 * FRAME);
      for (const [a, b] of ranges) for (let i = a * FRAME; i < b * FRAME; i++) x[i] = (r() * 2 - 1) * 0.17;
      return x;
    };
    const a = voiceOf([
      [20, 80],
      [220, 260],
    ]);
    const b = voiceOf([
      [120, 180],
      [220, 260],
    ]);
    const mic = (own: Float32Array, other: Float32Array): Float32Array =>
      own.map((v, i) => v + 0.16 * other[i]! + (r() * 2 - 1) * 1.7e-3);
    const mics = [mic(a, b), mic(b, a)];
    const [gateA, gateB] = closeMicStretches(mics, FRAME, { bleedMarginDb: BLEED_GATE_MARGIN_DB });
    // Each mic's own talk, widened by 16 frames; the other's talk skipped; the overlap kept.
    expect(gateA!.keep).toEqual([
      { start: 4, end: 96 },
      { start: 204, end: 276 },
    ]);
    expect(gateB!.keep).toEqual([{ start: 104, end: 276 }]);
    // Without the bleed gate the bleed is loud enough to be kept (it is 44 dB over the hiss).
    const plain = closeMicStretches(mics, FRAME);
    expect(plain[0]).toEqual(gatedStretches(mics[0]!, FRAME));
    expect(plain[0]!.keep).toEqual([{ start: 4, end: 276 }]);
    expect(plain[0]!.bleedOf).toBeUndefined();
    // Each skipped frame says whose bleed it is: B's talk on A, A's on B; the pad around the
    // bleed (floor frames the floor gate alone kept) points at the same neighbour.
    expect(gateA!.bleedOf![150]).toBe(1);
    expect(gateA!.bleedOf![100]).toBe(1);
    expect(gateA!.bleedOf![50]).toBe(-1);
    expect(gateB!.bleedOf![50]).toBe(0);
    expect(gateB!.bleedOf![150]).toBe(-1);
  });

  test('frames skipped as a neighbour’s bleed take its probability; floor frames stay 0', () => {
    // Three mics over 10 frames: C is loudest in 2–5 and kept; B is C's bleed there, A is B's
    // bleed in 3 (a chain) and C's in 4; frame 8 is under every floor.
    const none = -1;
    const gate = (keep: Array<[number, number]>, bleedOf?: number[]): GatedStretches => ({
      frames: 10,
      keep: keep.map(([start, end]) => ({ start, end })),
      ...(bleedOf ? { bleedOf: Int8Array.from(bleedOf) } : {}),
    });
    const gates = [
      gate([[0, 2]], [none, none, none, 1, 2, none, none, none, none, none]),
      gate([[0, 2]], [none, none, 2, 2, 2, 2, none, none, none, none]),
      gate([[0, 6]]),
    ];
    const probs = [
      Float32Array.of(0.1, 0.1, 0, 0, 0, 0, 0, 0, 0, 0),
      Float32Array.of(0.2, 0.2, 0, 0, 0, 0, 0, 0, 0, 0),
      Float32Array.of(0.3, 0.3, 0.9, 0.8, 0.7, 0.6, 0, 0, 0, 0),
    ];
    creditBleedFrames(probs, gates);
    expect([...probs[0]!].map((p) => +p.toFixed(2))).toEqual([0.1, 0.1, 0, 0.8, 0.7, 0, 0, 0, 0, 0]);
    expect([...probs[1]!].map((p) => +p.toFixed(2))).toEqual([0.2, 0.2, 0.9, 0.8, 0.7, 0.6, 0, 0, 0, 0]);
    expect([...probs[2]!].map((p) => +p.toFixed(2))).toEqual([0.3, 0.3, 0.9, 0.8, 0.7, 0.6, 0, 0, 0, 0]);
  });
});
