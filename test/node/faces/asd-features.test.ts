/**
 * LR-ASD's inputs computed as its repository computes them: the MFCC against a plain float64
 * reference written here from python_speech_features' steps (a direct DFT, no FFT), and the
 * face crop's geometry, padding and box smoothing on synthetic frames.
 */
import { describe, expect, it } from 'vitest';
import {
  ASD_CROP_SIZE,
  ASD_PAD_GREY,
  asdCropWindow,
  asdFaceCrop,
  asdMfcc,
  asdMfccFrameCount,
  asdScoredFrames,
  asdWindows,
  combineAsdScores,
  smoothAsdBoxes,
  type AsdFaceBox,
} from '../../../src/analysis/faces/asd-features.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

const EPS = 2.220446049250313e-16;

/**
 * python_speech_features.mfcc(signal, 16000, numcep=13, winlen=0.025, winstep=0.010) written out
 * step by step in float64, with a direct DFT: the reference for a few frames.
 */
function referenceMfcc(samples: Float32Array, frameIndices: readonly number[]): number[][] {
  const int16 = Array.from(samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s * 32768))));
  const emphasised = int16.map((s, i) => (i === 0 ? s : s - 0.97 * int16[i - 1]!));
  const mel = (hz: number): number => 2595 * Math.log10(1 + hz / 700);
  const hz = (m: number): number => 700 * (10 ** (m / 2595) - 1);
  const points = Array.from({ length: 28 }, (_, i) => Math.floor((513 * hz((mel(8000) * i) / 27)) / 16000));
  return frameIndices.map((f) => {
    const frame = Array.from({ length: 400 }, (_, n) => emphasised[f * 160 + n] ?? 0);
    const power: number[] = [];
    for (let k = 0; k <= 256; k++) {
      let re = 0;
      let im = 0;
      for (let n = 0; n < 400; n++) {
        re += frame[n]! * Math.cos((2 * Math.PI * k * n) / 512);
        im -= frame[n]! * Math.sin((2 * Math.PI * k * n) / 512);
      }
      power.push((re * re + im * im) / 512);
    }
    const energy = power.reduce((a, b) => a + b, 0);
    const logMel: number[] = [];
    for (let j = 0; j < 26; j++) {
      let sum = 0;
      for (let k = points[j]!; k < points[j + 1]!; k++)
        sum += ((k - points[j]!) / (points[j + 1]! - points[j]!)) * power[k]!;
      for (let k = points[j + 1]!; k < points[j + 2]!; k++)
        sum += ((points[j + 2]! - k) / (points[j + 2]! - points[j + 1]!)) * power[k]!;
      logMel.push(Math.log(sum || EPS));
    }
    const cepstra = Array.from({ length: 13 }, (_, k) => {
      let c = 0;
      for (let n = 0; n < 26; n++) c += logMel[n]! * Math.cos((Math.PI * k * (2 * n + 1)) / 52);
      return c * Math.sqrt((k === 0 ? 1 : 2) / 26) * (1 + 11 * Math.sin((Math.PI * k) / 22));
    });
    cepstra[0] = Math.log(energy || EPS);
    return cepstra;
  });
}

function sine(hz: number, seconds: number, amplitude = 0.3): Float32Array {
  return Float32Array.from(
    { length: Math.round(seconds * 16000) },
    (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / 16000),
  );
}

function whiteNoise(seconds: number, seed: number, amplitude = 0.2): Float32Array {
  const rnd = seededRandom(seed);
  return Float32Array.from({ length: Math.round(seconds * 16000) }, () => amplitude * (2 * rnd() - 1));
}

const row = (values: Float32Array, f: number): number[] => Array.from(values.subarray(f * 13, f * 13 + 13));

describe('asdMfcc (python_speech_features defaults)', () => {
  it('cuts 100 frames a second: 1 + ⌈(n − 400) / 160⌉, one frame for a signal shorter than a window', () => {
    expect(asdMfccFrameCount(16000)).toBe(99); // 1 + ⌈15600 / 160⌉ = 1 + ⌈97.5⌉
    expect(asdMfccFrameCount(48000)).toBe(299);
    expect(asdMfccFrameCount(48160)).toBe(300);
    expect(asdMfccFrameCount(400)).toBe(1);
    expect(asdMfccFrameCount(0)).toBe(1);
    const m = asdMfcc(sine(440, 2));
    expect(m.frames).toBe(199);
    expect(m.values.length).toBe(199 * 13);
  });

  it('matches the direct-DFT reference on a sine, white noise and the zero-padded last frame', () => {
    const cases = [
      { name: 'sine 1 kHz', signal: sine(1000, 1) },
      { name: 'sine 300 Hz', signal: sine(300, 1, 0.05) },
      { name: 'white noise', signal: whiteNoise(1, 7) },
    ];
    for (const { name, signal } of cases) {
      const m = asdMfcc(signal);
      const frames = [0, 1, 40, m.frames - 1]; // the last frame runs past the end: zero-padded
      const ref = referenceMfcc(signal, frames);
      frames.forEach((f, i) => {
        const got = row(m.values, f);
        ref[i]!.forEach((r, k) => {
          // float32 output of float64 values
          expect(Math.abs(got[k]! - r), `${name} frame ${f} coefficient ${k}`).toBeLessThan(
            1e-4 * Math.max(1, Math.abs(r)),
          );
        });
      });
    }
  });

  it('gives silence log(eps) energy and zero cepstra: a flat log-mel spectrum has only a 0th coefficient', () => {
    const m = asdMfcc(new Float32Array(3200));
    for (let f = 0; f < m.frames; f++) {
      const r = row(m.values, f);
      expect(r[0]).toBeCloseTo(Math.log(EPS), 4);
      for (let k = 1; k < 13; k++) expect(Math.abs(r[k]!)).toBeLessThan(1e-9);
    }
  });

  it('replaces the first coefficient with the log frame energy: ×2 in amplitude adds log 4', () => {
    const a = asdMfcc(whiteNoise(0.5, 3, 0.1));
    const b = asdMfcc(whiteNoise(0.5, 3, 0.2));
    for (const f of [5, 20, 40]) {
      // int16 rounding makes the doubling inexact by a hair.
      expect(row(b.values, f)[0]! - row(a.values, f)[0]!).toBeCloseTo(Math.log(4), 3);
      // A gain shifts every log-mel value by log 4: only the DCT's 0th row sees it, so the
      // cepstra 1..12 stay put.
      for (let k = 1; k < 13; k++) expect(row(b.values, f)[k]!).toBeCloseTo(row(a.values, f)[k]!, 2);
    }
  });

  it('lifts coefficient k by 1 + 11·sin(πk/22): the reference without lifter differs by exactly that', () => {
    const signal = whiteNoise(0.2, 11);
    const m = asdMfcc(signal);
    const ref = referenceMfcc(signal, [3])[0]!;
    const lift = (k: number): number => 1 + 11 * Math.sin((Math.PI * k) / 22);
    expect(lift(11)).toBe(12); // the largest lift, at k = L/2
    for (let k = 1; k < 13; k++) {
      const unlifted = ref[k]! / lift(k);
      expect(row(m.values, 3)[k]! / unlifted).toBeCloseTo(lift(k), 3);
    }
  });

  it('puts a 1 kHz tone above a 3 kHz tone in the second cepstral coefficient (spectral tilt)', () => {
    // c1 weighs low mel bands positively and high ones negatively.
    const low = row(asdMfcc(sine(1000, 0.2)).values, 5)[1]!;
    const high = row(asdMfcc(sine(3000, 0.2)).values, 5)[1]!;
    expect(low).toBeGreaterThan(high);
  });
});

/** A full-range frame whose pixel at (x, y) is `value(x, y)`. */
function frameOf(width: number, height: number, value: (x: number, y: number) => number): Uint8Array {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = value(x, y);
  return data;
}

const at = (crop: Float32Array, r: number, c: number): number => crop[r * ASD_CROP_SIZE + c]!;

describe('face crop geometry', () => {
  it('takes half the larger side as bs and cuts my − bs .. my + 1.8·bs by mx ± 1.4·bs', () => {
    const [c] = smoothAsdBoxes([{ cx: 100, cy: 80, w: 40, h: 50 }]);
    expect(c).toEqual({ mx: 100, my: 80, bs: 25 });
    expect(asdCropWindow(c!)).toEqual({ x0: 65, x1: 135, y0: 55, y1: 125 });
    // Truncated to whole pixels like the demo's int().
    expect(asdCropWindow({ mx: 50.7, my: 40.2, bs: 10 })).toEqual({ x0: 36, x1: 64, y0: 30, y1: 58 });
  });

  it('keeps the central half of the 224×224 resize: x from x0 + W/4 to x0 + 3W/4, the lower face', () => {
    // Pixel value = x coordinate: bilinear sampling gives back the source x of each crop column.
    const width = 200;
    const height = 160;
    const data = frameOf(width, height, (x) => x);
    const crop = asdFaceCrop({ data, width, height, range: 'full' }, { mx: 100, my: 80, bs: 25 });
    // Window 65..135 (W = 70): crop column c samples x0 + (56 + c + 0.5)·70/224 − 0.5.
    const sourceX = (c: number): number => 65 + (56 + c + 0.5) * (70 / 224) - 0.5;
    for (const c of [0, 1, 55, 111]) expect(at(crop, 10, c)).toBeCloseTo(sourceX(c), 4);
    expect(sourceX(0)).toBeCloseTo(82.16, 2); // ≈ mx − 0.7·bs
    expect(sourceX(111)).toBeCloseTo(116.84, 2); // ≈ mx + 0.7·bs
    // Rows: value = y; window 55..125 (H = 70): from my − 0.3·bs to my + 1.1·bs, below the box centre.
    const rows = asdFaceCrop(
      { data: frameOf(width, height, (_, y) => y), width, height, range: 'full' },
      {
        mx: 100,
        my: 80,
        bs: 25,
      },
    );
    expect(at(rows, 0, 50)).toBeCloseTo(55 + 56.5 * (70 / 224) - 0.5, 4);
    expect(at(rows, 111, 50)).toBeCloseTo(55 + 167.5 * (70 / 224) - 0.5, 4);
  });

  it('pads with grey 110 where the cut leaves the picture', () => {
    const width = 120;
    const height = 100;
    const data = new Uint8Array(width * height); // black
    // bs = 25 at (5, 5): window x −30..40, y −20..50. Column c samples x = −30 + (56.5 + c)·70/224 − 0.5:
    // below −1 (both taps outside) for c ≤ 37, at or above 0 (both inside) for c ≥ 42; rows alike.
    const crop = asdFaceCrop({ data, width, height, range: 'full' }, { mx: 5, my: 5, bs: 25 });
    expect(at(crop, 80, 0)).toBe(ASD_PAD_GREY);
    expect(at(crop, 80, 37)).toBe(ASD_PAD_GREY);
    expect(at(crop, 80, 38)).toBeLessThan(ASD_PAD_GREY);
    expect(at(crop, 80, 38)).toBeGreaterThan(0);
    expect(at(crop, 80, 42)).toBe(0);
    // Row r samples y = −20 + (56.5 + r)·70/224 − 0.5: all inside from r = 10 (y ≥ 0).
    expect(at(crop, 5, 80)).toBe(ASD_PAD_GREY);
    expect(at(crop, 10, 80)).toBe(0);
    // A crop wholly off the picture is all pad.
    const off = asdFaceCrop({ data, width, height, range: 'full' }, { mx: 500, my: 500, bs: 20 });
    expect(off.every((v) => v === ASD_PAD_GREY)).toBe(true);
  });

  it("stretches a decoder's video-range luma (16..235) to 0..255 and reads rows by stride", () => {
    const width = 64;
    const height = 64;
    const stride = 80;
    const data = new Uint8Array(4 + stride * height).fill(235);
    for (let y = 0; y < height; y++) data.fill(16, 4 + y * stride, 4 + y * stride + width / 2);
    const crop = asdFaceCrop({ data, width, height, stride, offset: 4, range: 'video' }, { mx: 32, my: 20, bs: 10 });
    expect(at(crop, 50, 0)).toBe(0);
    expect(at(crop, 50, 111)).toBe(255);
  });

  it('smooths centre and size with a 13-frame running median: one-frame jumps vanish, a step stays where it is', () => {
    const boxes: AsdFaceBox[] = Array.from({ length: 40 }, (_, i) => ({
      cx: i < 20 ? 100 : 140,
      cy: 80,
      w: 40,
      h: i < 20 ? 50 : 70,
    }));
    boxes[8] = { cx: 300, cy: 10, w: 200, h: 10 }; // a false detection
    for (let i = 26; i < 32; i++) boxes[i] = { ...boxes[i]!, cy: 150 }; // six frames off: fewer than half of 13
    const smooth = smoothAsdBoxes(boxes);
    expect(smooth[8]).toEqual({ mx: 100, my: 80, bs: 25 });
    expect(smooth[19]!.mx).toBe(100);
    expect(smooth[20]!.mx).toBe(140);
    expect(smooth[19]!.bs).toBe(25);
    expect(smooth[20]!.bs).toBe(35);
    expect(smooth.slice(20, 38).every((c) => c.my === 80)).toBe(true);
    // Seven frames off out of 13 win the median.
    boxes[32] = { ...boxes[32]!, cy: 150 };
    expect(smoothAsdBoxes(boxes)[29]!.my).toBe(150);
    // At the ends the median is over the frames there are: frames 0..6 for the first.
    const ramp = smoothAsdBoxes(Array.from({ length: 20 }, (_, i) => ({ cx: i, cy: 0, w: 10, h: 10 })));
    expect(ramp[0]!.mx).toBe(3);
    expect(ramp[10]!.mx).toBe(10);
    expect(ramp[19]!.mx).toBe(16);
  });
});

describe('score windows and averaging (the demo)', () => {
  it('scores only frames with four MFCC frames each, cut to the shorter of audio and video', () => {
    expect(asdScoredFrames(298, 75)).toBe(74);
    expect(asdScoredFrames(400, 75)).toBe(75);
    expect(asdScoredFrames(3, 10)).toBe(0);
  });

  it('cuts 1 to 6 s windows from the start, the last one short', () => {
    const w = asdWindows(80, [1, 2, 6]);
    expect(w[0]).toEqual([
      { start: 0, frames: 25 },
      { start: 25, frames: 25 },
      { start: 50, frames: 25 },
      { start: 75, frames: 5 },
    ]);
    expect(w[1]).toEqual([
      { start: 0, frames: 50 },
      { start: 50, frames: 30 },
    ]);
    expect(w[2]).toEqual([{ start: 0, frames: 80 }]);
  });

  it('averages over the window lengths, then over ±2 frames (fewer at the ends)', () => {
    const a = Float32Array.from([0, 0, 0, 10, 0, 0, 0]);
    const b = Float32Array.from([2, 2, 2, 2, 2, 2, 2]);
    const out = combineAsdScores([a, b]);
    // Mean of the passes: [1, 1, 1, 6, 1, 1, 1]; then ±2 frames.
    expect(Array.from(out)).toEqual([1, 2.25, 2, 2, 2, 2.25, 1]);
  });
});
