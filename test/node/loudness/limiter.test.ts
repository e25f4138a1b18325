/**
 * The true-peak limiter (src/analysis/limiter.ts): the true peak of its output, read by the
 * BS.1770-4 meter, stays under the ceiling for signals whose peaks fall between samples; what
 * is under the ceiling passes untouched (only delayed); and the gain moves smoothly.
 */
import { describe, expect, test } from 'vitest';
import { TruePeakLimiter } from '../../../src/analysis/limiter.ts';
import { LoudnessMeter } from '../../../src/analysis/loudness.ts';
import { seededRandom } from '../../../src/analysis/random.ts';

const RATE = 48_000;

function run(limiter: TruePeakLimiter, planes: Float32Array[], block = 1000): Float32Array[] {
  const out = planes.map(() => [] as Float32Array[]);
  for (let at = 0; at < planes[0]!.length; at += block) {
    const chunk = limiter.process(planes.map((p) => p.subarray(at, Math.min(p.length, at + block))));
    chunk.forEach((c, i) => out[i]!.push(c));
  }
  limiter.flush().forEach((c, i) => out[i]!.push(c));
  return out.map((parts) => {
    const all = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return all.subarray(limiter.latency);
  });
}

const truePeakDb = (planes: Float32Array[]): number => {
  const meter = new LoudnessMeter(RATE, planes.length);
  meter.push(planes);
  return 20 * Math.log10(meter.truePeak);
};

describe('true-peak limiter', () => {
  test('fs/4 at 45° (every sample 3 dB under the crest) at a +3 dBTP crest comes out at −1 dBTP', () => {
    const n = RATE;
    const x = Float32Array.from({ length: n }, (_, i) => 10 ** (3 / 20) * Math.sin((Math.PI / 2) * i + Math.PI / 4));
    const limiter = new TruePeakLimiter(1, RATE, { ceilingDbtp: -1 });
    const [y] = run(limiter, [x]);
    expect(truePeakDb([x])).toBeGreaterThan(2.9);
    expect(truePeakDb([y!])).toBeLessThanOrEqual(-1 + 0.05);
    // The sample peak alone would have let it through at 0 dBFS: the limiter saw the true peak.
    expect(truePeakDb([y!])).toBeGreaterThan(-1.5);
    expect(limiter.maxReductionDb).toBeGreaterThan(3.5);
  });

  test('loud speech-like bursts in stereo, then quiet: true peak ≤ ceiling; the quiet part passes unchanged', () => {
    const random = seededRandom(7);
    const n = RATE * 6;
    const left = new Float32Array(n);
    const right = new Float32Array(n);
    let lp = 0;
    for (let i = 0; i < n; i++) {
      const t = i / RATE;
      const env = t < 3 ? 1.6 * Math.abs(Math.sin(2 * Math.PI * 3 * t)) : 0.05;
      lp += 0.6 * (random() * 2 - 1 - lp);
      left[i] = env * lp;
      right[i] = env * 0.7 * lp + 0.1 * env * Math.sin(2 * Math.PI * 9000 * t);
    }
    const limiter = new TruePeakLimiter(2, RATE, { ceilingDbtp: -1, releaseMs: 100 });
    const [l, r] = run(limiter, [left, right]);
    expect(l!.length).toBe(n);
    expect(truePeakDb([left, right])).toBeGreaterThan(2);
    expect(truePeakDb([l!, r!])).toBeLessThanOrEqual(-1 + 0.05);
    // A second after the bursts the gain is back to 1: the samples are the input's.
    for (let i = Math.round(RATE * 4.2); i < n; i += 97) {
      expect(l![i]).toBeCloseTo(left[i]!, 6);
      expect(r![i]).toBeCloseTo(right[i]!, 6);
    }
  });

  test('the gain has no steps: sample to sample it moves by less than 1 %', () => {
    // A tone that jumps from −20 to +6 dBFS: the gain must ramp down ahead of the jump.
    const n = RATE;
    const x = Float32Array.from(
      { length: n },
      (_, i) => (i < n / 2 ? 0.1 : 2) * Math.sin((2 * Math.PI * 440 * i) / RATE),
    );
    const limiter = new TruePeakLimiter(1, RATE, { ceilingDbtp: -1 });
    const [y] = run(limiter, [x]);
    // Recover the gain where the sine is far from 0.
    let last = NaN;
    for (let i = 0; i < n; i++) {
      if (Math.abs(x[i]!) < 0.05) {
        last = NaN;
        continue;
      }
      const g = y![i]! / x[i]!;
      if (!Number.isNaN(last)) expect(Math.abs(g - last)).toBeLessThan(0.01);
      last = g;
    }
    expect(truePeakDb([y!])).toBeLessThanOrEqual(-1 + 0.05);
  });

  test('under the ceiling nothing changes: the output is the input, latency samples later', () => {
    const x = Float32Array.from({ length: 5000 }, (_, i) => 0.5 * Math.sin(i / 7));
    const limiter = new TruePeakLimiter(1, RATE, { ceilingDbtp: -1 });
    const [y] = run(limiter, [x], 333);
    expect(Array.from(y!)).toEqual(Array.from(x));
    expect(limiter.maxReductionDb).toBe(0);
  });
});
