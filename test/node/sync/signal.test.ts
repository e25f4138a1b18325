import { describe, expect, test } from 'vitest';
import { argmax, crossCorrelate, fft, parabolicPeak } from '../../../src/analysis/signal/signal-fft.ts';
import { resample, StreamingResampler } from '../../../src/analysis/signal/signal-resample.ts';
import { rng } from './synthetic.ts';

describe('fft', () => {
  /** The DFT of `re + i·im` at bin k, summed directly (sign −1 forward, +1 inverse). */
  function dft(re: Float64Array, im: Float64Array, k: number, sign: number): [number, number] {
    const n = re.length;
    let sr = 0;
    let si = 0;
    for (let t = 0; t < n; t++) {
      const a = (sign * 2 * Math.PI * ((k * t) % n)) / n;
      sr += re[t]! * Math.cos(a) - im[t]! * Math.sin(a);
      si += re[t]! * Math.sin(a) + im[t]! * Math.cos(a);
    }
    return [sr, si];
  }

  // Odd and even numbers of stages: the radix-2² passes, the radix-2 stage left over, the smallest sizes.
  test.each([2, 4, 8, 16, 32, 128, 1024])('matches a direct DFT, forward and inverse, n = %i', (n) => {
    const r = rng(n);
    const re = Float64Array.from({ length: n }, () => r() - 0.5);
    const im = Float64Array.from({ length: n }, () => r() - 0.5);
    for (const inverse of [false, true]) {
      const xr = re.slice();
      const xi = im.slice();
      fft(xr, xi, inverse);
      for (let k = 0; k < n; k++) {
        const [sr, si] = dft(re, im, k, inverse ? 1 : -1);
        expect(Math.abs(xr[k]! - sr)).toBeLessThan(1e-9);
        expect(Math.abs(xi[k]! - si)).toBeLessThan(1e-9);
      }
    }
  });

  test('a size past the bit-reversal table: a few bins against a direct DFT, and back again', () => {
    const n = 1 << 17;
    const r = rng(3);
    const re = Float64Array.from({ length: n }, () => r() - 0.5);
    const im = Float64Array.from({ length: n }, () => r() - 0.5);
    const xr = re.slice();
    const xi = im.slice();
    fft(xr, xi);
    for (const k of [0, 1, 12345, n / 2, n - 1]) {
      const [sr, si] = dft(re, im, k, -1);
      expect(Math.abs(xr[k]! - sr)).toBeLessThan(1e-7);
      expect(Math.abs(xi[k]! - si)).toBeLessThan(1e-7);
    }
    fft(xr, xi, true);
    let err = 0;
    for (let t = 0; t < n; t++) err = Math.max(err, Math.abs(xr[t]! / n - re[t]!), Math.abs(xi[t]! / n - im[t]!));
    expect(err).toBeLessThan(1e-12);
  });

  test('rejects a length that is not a power of two', () => {
    expect(() => fft(new Float64Array(12), new Float64Array(12))).toThrow(/power of two/);
    expect(() => fft(new Float64Array(8), new Float64Array(4))).toThrow(/re\/im differ/);
  });
});

describe('crossCorrelate', () => {
  test('finds a delay, positive or negative, with and without PHAT', () => {
    const r = rng(2);
    const a = Float32Array.from({ length: 500 }, () => r() - 0.5);
    for (const delay of [37, -21]) {
      const b = new Float32Array(600);
      for (let i = 0; i < a.length; i++) if (i + delay >= 0 && i + delay < b.length) b[i + delay] = a[i]!;
      for (const weighting of ['none', 'phat'] as const) {
        const c = crossCorrelate(a, b, -50, 50, { weighting });
        expect(argmax(c) - 50).toBe(delay);
      }
    }
  });

  test('parabolicPeak refines a sampled parabola exactly', () => {
    const x = [0, 1 - (1 - 0.3) ** 2, 1 - 0.3 ** 2, 1 - 1.3 ** 2].map((v) => v);
    // samples of 1-(t-1.3)^2 at t=0..3 → vertex 1.3
    const y = [0, 1, 2, 3].map((t) => 1 - (t - 1.3) ** 2);
    expect(parabolicPeak(y, 1)).toBeCloseTo(1.3, 9);
    expect(x.length).toBe(4);
  });
});

describe('resampler', () => {
  const sine = (f: number, rate: number, n: number, t0 = 0) =>
    Float32Array.from({ length: n }, (_, i) => Math.sin(2 * Math.PI * f * (t0 + i / rate)));

  test('48 kHz → 16 kHz keeps a 1 kHz sine (in phase) and removes a 12 kHz one', () => {
    const n = 48000;
    const x = sine(1000, 48000, n);
    const alias = sine(12000, 48000, n);
    const mixed = x.map((v, i) => v + alias[i]!);
    const y = resample(mixed, 48000, 16000, { zeroCrossings: 16 });
    expect(y.length).toBe(16000);
    const ref = sine(1000, 16000, 16000);
    let err = 0;
    for (let i = 200; i < 15800; i++) err = Math.max(err, Math.abs(y[i]! - ref[i]!));
    expect(err).toBeLessThan(0.01);
  });

  test('streaming in odd chunks gives the same output as one call', () => {
    const r = rng(3);
    const x = Float32Array.from({ length: 10_007 }, () => r() - 0.5);
    const whole = resample(x, 44100, 16000);
    const s = new StreamingResampler(44100, 16000);
    const parts: number[] = [];
    for (let i = 0; i < x.length; i += 333) parts.push(...s.push(x.subarray(i, i + 333)));
    parts.push(...s.flush());
    expect(parts.length).toBe(whole.length);
    let err = 0;
    for (let i = 0; i < whole.length; i++) err = Math.max(err, Math.abs(parts[i]! - whole[i]!));
    expect(err).toBeLessThan(1e-6);
  });

  test('integer decimation (the folded fast paths) matches the windowed sinc summed directly', () => {
    const r = rng(5);
    const x = Float32Array.from({ length: 48_000 }, () => r() - 0.5);
    for (const [outRate, chunk] of [
      [16000, 4096],
      [8000, 1000],
    ] as const) {
      const scale = outRate / 48000;
      const radius = 8 / scale;
      const h = (d: number) => {
        const u = d / radius;
        if (u >= 1) return 0;
        const sx = scale * d;
        const sinc = sx === 0 ? 1 : Math.sin(Math.PI * sx) / (Math.PI * sx);
        return scale * sinc * (0.42 + 0.5 * Math.cos(Math.PI * u) + 0.08 * Math.cos(2 * Math.PI * u));
      };
      const s = new StreamingResampler(48000, outRate);
      const parts: number[] = [];
      for (let i = 0; i < x.length; i += chunk) parts.push(...s.push(x.subarray(i, i + chunk)));
      parts.push(...s.flush());
      const step = 48000 / outRate;
      expect(parts.length).toBe(x.length / step);
      let err = 0;
      for (let k = 0; k < parts.length; k++) {
        let ref = 0;
        for (let j = Math.max(0, k * step - radius); j <= Math.min(x.length - 1, k * step + radius); j++)
          ref += x[j]! * h(Math.abs(k * step - j));
        err = Math.max(err, Math.abs(parts[k]! - ref));
      }
      expect(err).toBeLessThan(1e-4);
    }
  });

  test('a 100 ppm ratio stretches time by 100 ppm', () => {
    const rate = 8000;
    const x = sine(200, rate, rate * 20);
    const y = resample(x, rate, rate * (1 + 100e-6), { zeroCrossings: 16 });
    // Output sample k is input time k / (rate·1.0001).
    const k = rate * 19;
    expect(y[k]!).toBeCloseTo(Math.sin((2 * Math.PI * 200 * k) / (rate * 1.0001)), 3);
  });
});
