/**
 * A complex FFT (radix 2²) and FFT-based cross-correlation of real signals, for audio sync.
 * Pure: arrays in, arrays out.
 *
 * @module
 */

interface Plan {
  cos: Float64Array;
  sin: Float64Array;
  /** The bit-reversed index of each index; only for sizes up to REVERSAL_TABLE_MAX. */
  reversed: Uint32Array | null;
}

/** Sizes up to this keep a bit-reversal table (4 bytes an index); longer ones reverse on the fly. */
const REVERSAL_TABLE_MAX = 1 << 16;

const plans = new Map<number, Plan>();

function plan(n: number): Plan {
  let p = plans.get(n);
  if (!p) {
    const cos = new Float64Array(n / 2);
    const sin = new Float64Array(n / 2);
    for (let k = 0; k < n / 2; k++) {
      cos[k] = Math.cos((2 * Math.PI * k) / n);
      sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    let reversed: Uint32Array | null = null;
    if (n <= REVERSAL_TABLE_MAX) {
      reversed = new Uint32Array(n);
      for (let i = 1; i < n; i++) reversed[i] = (reversed[i >> 1]! >> 1) | (i & 1 ? n >> 1 : 0);
    }
    p = { cos, sin, reversed };
    // Sync uses a handful of sizes; keeping them all would pin tens of MB, so keep the last few.
    if (plans.size > 6) plans.clear();
    plans.set(n, p);
  }
  return p;
}

/** The smallest power of two that is at least `n` (and at least 2). */
export function nextPow2(n: number): number {
  let p = 2;
  while (p < n) p *= 2;
  return p;
}

/** Puts `re + i·im` in bit-reversed order, in place. */
function bitReverse(re: Float64Array, im: Float64Array, reversed: Uint32Array | null): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    if (reversed) j = reversed[i]!;
    else {
      let bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
    }
    if (i < j) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
}

/**
 * In-place FFT of `re + i·im` (length a power of two). `inverse` computes the unnormalised
 * inverse (divide by n yourself).
 *
 * Decimation in time, two radix-2 stages per pass (radix 2²): three complex multiplications
 * for every four points where radix 2 takes four, and half the passes over the arrays. The
 * first two stages need no multiplication; an odd stage left over at the end is radix 2.
 *
 * Over 80 lines on purpose: the butterfly passes are the innermost numeric loop of the analysis;
 * a call per stage or butterfly would cost time and hide the index arithmetic they share.
 */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (n !== im.length || (n & (n - 1)) !== 0)
    throw new RangeError(`fft: length ${n} is not a power of two or re/im differ`);
  if (n < 2) return;
  const { cos, sin, reversed } = plan(n);
  bitReverse(re, im, reversed);
  // W_N^k = cos − i·sin forward, cos + i·sin inverse; W_4^1 = −i forward, +i inverse.
  const sign = inverse ? 1 : -1;
  let size = 1;
  if (n >= 4) {
    for (let s = 0; s < n; s += 4) {
      const b0r = re[s]! + re[s + 1]!;
      const b0i = im[s]! + im[s + 1]!;
      const b1r = re[s]! - re[s + 1]!;
      const b1i = im[s]! - im[s + 1]!;
      const b2r = re[s + 2]! + re[s + 3]!;
      const b2i = im[s + 2]! + im[s + 3]!;
      const b3r = re[s + 2]! - re[s + 3]!;
      const b3i = im[s + 2]! - im[s + 3]!;
      // W_4^1 · b3
      const tr = -sign * b3i;
      const ti = sign * b3r;
      re[s] = b0r + b2r;
      im[s] = b0i + b2i;
      re[s + 2] = b0r - b2r;
      im[s + 2] = b0i - b2i;
      re[s + 1] = b1r + tr;
      im[s + 1] = b1i + ti;
      re[s + 3] = b1r - tr;
      im[s + 3] = b1i - ti;
    }
    size = 4;
  }
  // From transforms of size h to size 4h: a stage with twiddle W_2h^k, then one with W_4h^k.
  for (; size * 4 <= n; size *= 4) {
    const h = size;
    const step = n / (4 * h);
    for (let k = 0; k < h; k++) {
      const w2r = cos[k * step]!;
      const w2i = sign * sin[k * step]!;
      const w1r = cos[2 * k * step]!;
      const w1i = sign * sin[2 * k * step]!;
      for (let s = k; s < n; s += 4 * h) {
        const i1 = s + h;
        const i2 = i1 + h;
        const i3 = i2 + h;
        const m1r = re[i1]! * w1r - im[i1]! * w1i;
        const m1i = re[i1]! * w1i + im[i1]! * w1r;
        const m3r = re[i3]! * w1r - im[i3]! * w1i;
        const m3i = re[i3]! * w1i + im[i3]! * w1r;
        const b0r = re[s]! + m1r;
        const b0i = im[s]! + m1i;
        const b1r = re[s]! - m1r;
        const b1i = im[s]! - m1i;
        const b2r = re[i2]! + m3r;
        const b2i = im[i2]! + m3i;
        const b3r = re[i2]! - m3r;
        const b3i = im[i2]! - m3i;
        const c2r = b2r * w2r - b2i * w2i;
        const c2i = b2r * w2i + b2i * w2r;
        const c3r = b3r * w2r - b3i * w2i;
        const c3i = b3r * w2i + b3i * w2r;
        // W_4h^(k + h) = W_4^1 · W_4h^k
        const tr = -sign * c3i;
        const ti = sign * c3r;
        re[s] = b0r + c2r;
        im[s] = b0i + c2i;
        re[i2] = b0r - c2r;
        im[i2] = b0i - c2i;
        re[i1] = b1r + tr;
        im[i1] = b1i + ti;
        re[i3] = b1r - tr;
        im[i3] = b1i - ti;
      }
    }
  }
  if (size < n) {
    // One radix-2 stage left (an odd number of stages): halves of size n / 2.
    for (let a = 0; a < size; a++) {
      const b = a + size;
      const wr = cos[a]!;
      const wi = sign * sin[a]!;
      const xr = re[b]! * wr - im[b]! * wi;
      const xi = re[b]! * wi + im[b]! * wr;
      re[b] = re[a]! - xr;
      im[b] = im[a]! - xi;
      re[a] = re[a]! + xr;
      im[a] = im[a]! + xi;
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
