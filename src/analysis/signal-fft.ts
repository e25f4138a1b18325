/**
 * A radix-2 complex FFT and FFT-based cross-correlation of real signals, for audio sync.
 * Pure: arrays in, arrays out.
 *
 * @module
 */

const twiddleCache = new Map<number, { cos: Float64Array; sin: Float64Array }>();

function twiddles(n: number): { cos: Float64Array; sin: Float64Array } {
  let t = twiddleCache.get(n);
  if (!t) {
    const cos = new Float64Array(n / 2);
    const sin = new Float64Array(n / 2);
    for (let k = 0; k < n / 2; k++) {
      cos[k] = Math.cos((2 * Math.PI * k) / n);
      sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    t = { cos, sin };
    // Sync uses a handful of sizes; keeping them all would pin tens of MB, so keep the last few.
    if (twiddleCache.size > 6) twiddleCache.clear();
    twiddleCache.set(n, t);
  }
  return t;
}

/** The smallest power of two that is at least `n` (and at least 2). */
export function nextPow2(n: number): number {
  let p = 2;
  while (p < n) p *= 2;
  return p;
}

/**
 * In-place iterative radix-2 FFT of `re + i·im` (length a power of two). `inverse` computes the
 * unnormalised inverse (divide by n yourself).
 */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (n !== im.length || (n & (n - 1)) !== 0) throw new RangeError(`fft: length ${n} is not a power of two or re/im differ`);
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
  const { cos, sin } = twiddles(n);
  const sign = inverse ? 1 : -1;
  for (let size = 2; size <= n; size *= 2) {
    const half = size / 2;
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * step]!;
        const wi = sign * sin[k * step]!;
        const a = start + k;
        const b = a + half;
        const xr = re[b]! * wr - im[b]! * wi;
        const xi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a] = re[a]! + xr;
        im[a] = im[a]! + xi;
      }
    }
  }
}

/** Options of {@link crossCorrelate}. */
export interface CrossCorrelateOptions {
  /**
   * `phat` whitens the cross-spectrum (generalised cross-correlation with phase transform):
   * every frequency counts the same, so the peak is sharp even when two microphones colour the
   * sound differently. `none` is the plain correlation.
   */
  weighting?: 'none' | 'phat';
}

/**
 * Cross-correlation `c[L] = Σₙ a[n]·b[n+L]` for every lag `L` in `[minLag, maxLag]`, computed with
 * one FFT size that avoids wrap-around. Returns `c` indexed by `L - minLag`.
 *
 * @example
 * // b is a delayed by 3 samples: the peak is at lag 3.
 * const c = crossCorrelate(a, b, -10, 10); // argmax(c) === 13
 */
export function crossCorrelate(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  minLag: number,
  maxLag: number,
  options: CrossCorrelateOptions = {},
): Float64Array {
  if (!(maxLag >= minLag)) throw new RangeError(`crossCorrelate: maxLag ${maxLag} < minLag ${minLag}`);
  // Circular correlation equals the linear one for the requested lags when no product a[j]·b[j+L]
  // wraps onto b's samples: n > a.length - 1 + maxLag and n ≥ b.length - minLag. A narrow lag
  // range (the fine windows) thus needs an FFT about half the size of a full correlation.
  const n = nextPow2(Math.max(a.length + Math.max(0, maxLag), b.length + Math.max(0, -minLag)) + 1);
  // One complex FFT of z = a + i·b gives both spectra: A[k] = (Z[k] + conj Z[n−k]) / 2,
  // B[k] = (Z[k] − conj Z[n−k]) / 2i. Two FFTs instead of three.
  const zr = new Float64Array(n);
  const zi = new Float64Array(n);
  for (let i = 0; i < a.length; i++) zr[i] = a[i]!;
  for (let i = 0; i < b.length; i++) zi[i] = b[i]!;
  fft(zr, zi);
  const ar = new Float64Array(n);
  const ai = new Float64Array(n);
  let meanMag = 0;
  for (let k = 0; k < n; k++) {
    const m = (n - k) & (n - 1);
    const xr = zr[k]!;
    const xi = zi[k]!;
    const yr = zr[m]!;
    const yi = zi[m]!;
    const Ar = (xr + yr) / 2;
    const Ai = (xi - yi) / 2;
    const Br = (xi + yi) / 2;
    const Bi = (yr - xr) / 2;
    // C = conj(A)·B
    const r = Ar * Br + Ai * Bi;
    const i = Ar * Bi - Ai * Br;
    ar[k] = r;
    ai[k] = i;
    if (options.weighting === 'phat') meanMag += Math.sqrt(r * r + i * i);
  }
  if (options.weighting === 'phat') {
    // A floor relative to the mean keeps empty bins (band-limited audio) from being amplified into noise.
    const floor = (meanMag / n) * 1e-3 + 1e-30;
    for (let k = 0; k < n; k++) {
      const m = Math.sqrt(ar[k]! * ar[k]! + ai[k]! * ai[k]!) + floor;
      ar[k] = ar[k]! / m;
      ai[k] = ai[k]! / m;
    }
  }
  fft(ar, ai, true);
  const out = new Float64Array(maxLag - minLag + 1);
  for (let L = minLag; L <= maxLag; L++) {
    const idx = ((L % n) + n) % n;
    out[L - minLag] = ar[idx]! / n;
  }
  return out;
}

/** Index of the largest value. */
export function argmax(x: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i]! > x[best]!) best = i;
  return best;
}

/**
 * Sub-sample position of a peak at integer index `i` by fitting a parabola through its
 * neighbours; returns `i + δ` with `|δ| ≤ 0.5`.
 */
export function parabolicPeak(x: ArrayLike<number>, i: number): number {
  if (i <= 0 || i >= x.length - 1) return i;
  const y0 = x[i - 1]!;
  const y1 = x[i]!;
  const y2 = x[i + 1]!;
  const den = y0 - 2 * y1 + y2;
  if (den >= 0) return i;
  const d = (0.5 * (y0 - y2)) / den;
  return i + Math.max(-0.5, Math.min(0.5, d));
}
