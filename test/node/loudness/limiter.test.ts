/**
 * The true-peak limiter (src/analysis/audio/limiter.ts): the true peak of its output, read by the
 * BS.1770-4 meter, stays under the ceiling for signals whose peaks fall between samples; what
 * is under the ceiling passes untouched (only delayed); and the gain moves smoothly.
 */
import { describe, expect, test } from 'vitest';
import { SpeechCompressor } from '../../../src/analysis/audio/compressor.ts';
import { expectedLimiterFactors, TruePeakLimiter } from '../../../src/analysis/audio/limiter.ts';
import { integratedFromBlocks, LevellingAnalysis } from '../../../src/analysis/audio/levelling.ts';
import { LoudnessMeter } from '../../../src/analysis/audio/loudness.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

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

  test("the limiter's take, estimated from the 100 ms blocks' peaks, is within 0.5 LU of the limiter's own", () => {
    // Speech-like syllables with 1 ms plosives 20 dB over them, through the render's compressor,
    // then 24 dB up: the limiter at −2.5 dBTP takes a little off the peaks.
    const random = seededRandom(9);
    const n = RATE * 20;
    const raw = new Float32Array(n);
    let lp = 0;
    const syllable = RATE / 4;
    for (let i = 0; i < n; i++) {
      const t = i / RATE;
      lp += 0.3 * (random() * 2 - 1 - lp);
      const s = i % syllable;
      const plosive =
        i > RATE && Math.floor(i / syllable) % 3 === 0 && s < RATE / 1000
          ? 0.5 * Math.sin((Math.PI * s) / (RATE / 1000))
          : 0;
      raw[i] = (t % 2 > 1.7 ? 0 : 1) * (0.17 * Math.max(0, Math.sin(2 * Math.PI * 4 * t)) * lp + plosive);
    }
    const compressor = new SpeechCompressor(1, RATE);
    const x = new Float32Array(n);
    x.set(
      compressor
        .process([raw])[0]!
        .subarray(compressor.latency)
        .map((v) => 16 * v),
    );
    const ceiling = -2.5;
    const limiter = new TruePeakLimiter(1, RATE, { ceilingDbtp: ceiling });
    const [y] = run(limiter, [x]);
    const blocks = (v: Float32Array): { energies: Float64Array; peaks: Float64Array } => {
      const a = new LevellingAnalysis(1, 1, RATE);
      a.push([[v]]);
      a.finish();
      return { energies: a.sourceEnergies(0), peaks: a.mixBlockPeaks([new Float64Array(a.length).fill(1)]) };
    };
    const before = blocks(x);
    const factors = expectedLimiterFactors(before.peaks, 10 ** (ceiling / 20), 0.1);
    const estimated = integratedFromBlocks(before.energies.map((e, b) => e * factors[b]!));
    const actual = integratedFromBlocks(blocks(y!).energies);
    console.log(
      `limiter's take: ${(integratedFromBlocks(before.energies) - actual).toFixed(2)} LU, estimated ${(integratedFromBlocks(before.energies) - estimated).toFixed(2)} LU; at most ${limiter.maxReductionDb.toFixed(1)} dB`,
    );
    expect(limiter.maxReductionDb).toBeGreaterThan(1);
    expect(integratedFromBlocks(before.energies) - actual).toBeGreaterThan(0.2);
    expect(Math.abs(estimated - actual)).toBeLessThan(0.5);
    // Blocks whose peaks stay under the ceiling keep all their energy.
    expect(Array.from(expectedLimiterFactors([0.1, 0.2, 0.1], 0.5, 0.1))).toEqual([1, 1, 1]);
  });
});
