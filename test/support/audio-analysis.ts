/**
 * Test helpers that measure generated media: decoding with ffmpeg, an FFT cross-correlation
 * to recover offsets and drift, frame decoding for motion, and the camera marker reader.
 * Independent of src/analysis on purpose: fixtures must be checked without the code they test.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { decodeAudio as decodeFileAudio, probeVideo } from '../../tools/fixtures/encode.ts';
import type { MarkerGeometry } from '../../tools/fixtures/truth.ts';

/** Decodes a file's first audio stream to mono float32 at `rate` Hz (the fixture generator's decoder). */
export function decodeAudio(path: string, rate = 8000): Float32Array {
  return decodeFileAudio(path, rate);
}

/** Decodes every video frame scaled to `width` px wide, as 8-bit grey. */
export function decodeGreyFrames(path: string, width = 320): { width: number; height: number; frames: Uint8Array[] } {
  const { width: w, height: h } = probeVideo(path);
  if (!(w > 0) || !(h > 0)) throw new Error(`decodeGreyFrames: cannot probe ${path}`);
  const height = 2 * Math.round((width * h) / w / 2);
  const res = spawnSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-i',
      path,
      '-map',
      '0:v:0',
      '-vf',
      `scale=${width}:${height}:flags=area,format=gray`,
      '-f',
      'rawvideo',
      'pipe:1',
    ],
    {
      maxBuffer: 2 ** 31,
    },
  );
  if (res.status !== 0) throw new Error(`decodeGreyFrames ${path}: ${res.stderr.toString()}`);
  const size = width * height;
  const frames: Uint8Array[] = [];
  for (let o = 0; o + size <= res.stdout.length; o += size)
    frames.push(new Uint8Array(res.stdout.buffer, res.stdout.byteOffset + o, size));
  return { width, height, frames };
}

/** Decodes one frame at `timeSec` scaled to `width` px wide, as packed RGB. */
export function decodeRgbFrame(
  path: string,
  timeSec: number,
  width = 320,
): { width: number; height: number; rgb: Uint8Array } {
  const { width: w, height: h } = probeVideo(path);
  if (!(w > 0) || !(h > 0)) throw new Error(`decodeRgbFrame: cannot probe ${path}`);
  const height = 2 * Math.round((width * h) / w / 2);
  const res = spawnSync('ffmpeg', [
    '-v',
    'error',
    '-ss',
    String(timeSec),
    '-i',
    path,
    '-frames:v',
    '1',
    '-vf',
    `scale=${width}:${height}:flags=area`,
    '-pix_fmt',
    'rgb24',
    '-f',
    'rawvideo',
    'pipe:1',
  ]);
  if (res.status !== 0 || res.stdout.length !== width * height * 3)
    throw new Error(`decodeRgbFrame ${path}: ${res.stderr.toString()}`);
  return { width, height, rgb: new Uint8Array(res.stdout) };
}

/** In-place iterative radix-2 FFT (re, im of power-of-two length); inverse when `inverse`. */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] ?? 0, re[i] ?? 0];
      [im[i], im[j]] = [im[j] ?? 0, im[i] ?? 0];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = ((inverse ? 2 : -2) * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const br = (re[b] ?? 0) * cr - (im[b] ?? 0) * ci;
        const bi = (re[b] ?? 0) * ci + (im[b] ?? 0) * cr;
        re[b] = (re[a] ?? 0) - br;
        im[b] = (im[a] ?? 0) - bi;
        re[a] = (re[a] ?? 0) + br;
        im[a] = (im[a] ?? 0) + bi;
        const t = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = t;
      }
    }
  }
  if (inverse)
    for (let i = 0; i < n; i++) {
      re[i] = (re[i] ?? 0) / n;
      im[i] = (im[i] ?? 0) / n;
    }
}

/**
 * Finds the lag L (in samples, sub-sample by parabolic interpolation) that best aligns `x`
 * with `ref`, i.e. x[n] ≈ ref[n + L]. Also returns the normalised peak height.
 *
 * @example
 * const { lag } = crossCorrelate(cameraAudio, referenceMix); // lag / 8000 = offset in s
 */
export function crossCorrelate(x: Float32Array, ref: Float32Array): { lag: number; peak: number } {
  let n = 1;
  while (n < x.length + ref.length) n <<= 1;
  const xr = new Float64Array(n);
  const xi = new Float64Array(n);
  const rr = new Float64Array(n);
  const ri = new Float64Array(n);
  xr.set(x);
  rr.set(ref);
  fft(xr, xi);
  fft(rr, ri);
  // c[L] = sum x[n] ref[n + L]  <=>  C = conj(X) * R
  for (let k = 0; k < n; k++) {
    const a = xr[k] ?? 0;
    const b = -(xi[k] ?? 0);
    const c = rr[k] ?? 0;
    const d = ri[k] ?? 0;
    xr[k] = a * c - b * d;
    xi[k] = a * d + b * c;
  }
  fft(xr, xi, true);
  let best = 0;
  for (let k = 1; k < n; k++) if ((xr[k] ?? 0) > (xr[best] ?? 0)) best = k;
  const y0 = xr[(best - 1 + n) % n] ?? 0;
  const y1 = xr[best] ?? 0;
  const y2 = xr[(best + 1) % n] ?? 0;
  const denom = y0 - 2 * y1 + y2;
  const frac = denom !== 0 ? (0.5 * (y0 - y2)) / denom : 0;
  // Lags run from -(x.length - 1) (stored at the end) to ref.length - 1.
  const lag = (best >= ref.length ? best - n : best) + frac;
  let ex = 0;
  let er = 0;
  for (const v of x) ex += v * v;
  for (const v of ref) er += v * v;
  return { lag, peak: y1 / Math.sqrt(ex * er || 1) };
}

/** Mean absolute difference of two grey frames inside a pixel rectangle. */
export function regionChange(
  a: Uint8Array,
  b: Uint8Array,
  width: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): number {
  let s = 0;
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      s += Math.abs((a[y * width + x] ?? 0) - (b[y * width + x] ?? 0));
      n++;
    }
  }
  return n > 0 ? s / n : 0;
}

/**
 * Reads the camera index from the corner marker of an RGB frame: each square is a 1 when it
 * is yellow (red and green high, blue low) and a 0 when it is dark blue.
 */
export function readMarker(rgb: Uint8Array, width: number, height: number, m: MarkerGeometry): number {
  let value = 0;
  // x is a fraction of the width; size and gap are fractions of the height.
  const s = m.size * height;
  const g = m.gap * height;
  for (let b = 0; b < m.bits; b++) {
    const px = Math.round(m.x * width + b * (s + g) + s / 2);
    const py = Math.round((m.y + m.size / 2) * height);
    const i = (py * width + px) * 3;
    const r = rgb[i] ?? 0;
    const gr = rgb[i + 1] ?? 0;
    const bl = rgb[i + 2] ?? 0;
    const one = r > 150 && gr > 130 && bl < 100;
    value = (value << 1) | (one ? 1 : 0);
  }
  return value;
}

/**
 * Click score at `atMs`: the largest |second difference| within ±2 ms of the join over the
 * largest in the 30 ms on either side of it (2 to 32 ms away). A splice step stands out from
 * the waveform around it (score well above 1); a smooth join does not (about 1 or less).
 *
 * @example
 * const score = clickScore(decodeAudio(out, 48_000), 48_000, joinMs); // < 1: no audible click
 */
export function clickScore(x: Float32Array, rate: number, atMs: number): number {
  const c = Math.round((atMs / 1000) * rate);
  const at = (ms: number) => Math.round((ms / 1000) * rate);
  const d2 = (i: number) => Math.abs((x[i + 1] ?? 0) - 2 * (x[i] ?? 0) + (x[i - 1] ?? 0));
  let near = 0;
  for (let i = c - at(2); i <= c + at(2); i++) near = Math.max(near, d2(i));
  let around = 1e-6;
  for (let i = c - at(32); i < c - at(2); i++) around = Math.max(around, d2(i));
  for (let i = c + at(2) + 1; i <= c + at(32); i++) around = Math.max(around, d2(i));
  return near / around;
}
