/**
 * Crosstalk cancellation between mics: each channel less what the other channels predict of
 * it, the prediction learnt where the channel carries only its neighbours' bleed. What is
 * left is the channel's own voice (and its own noise), even when a louder neighbour talks
 * over it. Pure: arrays in, arrays out.
 *
 * @module
 */
import { fft } from '../signal-fft.ts';

/** Solves `a x = b` in place for a complex `d × d` system (row-major re/im), with partial pivoting. */
function solveComplex(ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array, d: number): void {
  for (let c = 0; c < d; c++) {
    let p = c;
    let best = -1;
    for (let r = c; r < d; r++) {
      const m = ar[r * d + c]! ** 2 + ai[r * d + c]! ** 2;
      if (m > best) {
        best = m;
        p = r;
      }
    }
    if (p !== c) {
      for (let k = 0; k < d; k++) {
        [ar[c * d + k], ar[p * d + k]] = [ar[p * d + k]!, ar[c * d + k]!];
        [ai[c * d + k], ai[p * d + k]] = [ai[p * d + k]!, ai[c * d + k]!];
      }
      [br[c], br[p]] = [br[p]!, br[c]!];
      [bi[c], bi[p]] = [bi[p]!, bi[c]!];
    }
    const pr = ar[c * d + c]!;
    const pi = ai[c * d + c]!;
    const den = pr * pr + pi * pi;
    if (den === 0) continue;
    for (let r = c + 1; r < d; r++) {
      // f = a[r][c] / a[c][c]
      const xr = ar[r * d + c]!;
      const xi = ai[r * d + c]!;
      const fr = (xr * pr + xi * pi) / den;
      const fi = (xi * pr - xr * pi) / den;
      for (let k = c; k < d; k++) {
        const yr = ar[c * d + k]!;
        const yi = ai[c * d + k]!;
        ar[r * d + k] = ar[r * d + k]! - (fr * yr - fi * yi);
        ai[r * d + k] = ai[r * d + k]! - (fr * yi + fi * yr);
      }
      const cr = br[c]!;
      const ci = bi[c]!;
      br[r] = br[r]! - (fr * cr - fi * ci);
      bi[r] = bi[r]! - (fr * ci + fi * cr);
    }
  }
  for (let c = d - 1; c >= 0; c--) {
    let sr = br[c]!;
    let si = bi[c]!;
    for (let k = c + 1; k < d; k++) {
      sr -= ar[c * d + k]! * br[k]! - ai[c * d + k]! * bi[k]!;
      si -= ar[c * d + k]! * bi[k]! + ai[c * d + k]! * br[k]!;
    }
    const pr = ar[c * d + c]!;
    const pi = ai[c * d + c]!;
    const den = pr * pr + pi * pi;
    br[c] = den === 0 ? 0 : (sr * pr + si * pi) / den;
    bi[c] = den === 0 ? 0 : (si * pr - sr * pi) / den;
  }
}

/** The square-root Hann window of `size` samples: with 50 % overlap, analysis and synthesis under it give the signal back. */
function sqrtHann(size: number): Float64Array {
  return Float64Array.from({ length: size }, (_, i) => Math.sin((Math.PI * (i + 0.5)) / size));
}

/**
 * Short-time spectra (bins 0 … hop) of every channel, frame by frame: frame `m` (from −1 to
 * `frames − 1`) is the `2 · hop` samples centred on samples [m · hop, (m + 1) · hop), windowed. Two real channels
 * share one complex FFT.
 */
function* spectra(
  channels: readonly Float32Array[],
  hop: number,
  frames: number,
  needed: (m: number) => boolean = () => true,
): Generator<{ m: number; re: Float64Array[]; im: Float64Array[] }> {
  const size = 2 * hop;
  const win = sqrtHann(size);
  const zr = new Float64Array(size);
  const zi = new Float64Array(size);
  const re = channels.map(() => new Float64Array(hop + 1));
  const im = channels.map(() => new Float64Array(hop + 1));
  // From frame −1: its second half and frame 0's first half make up the signal's first hop / 2 samples.
  for (let m = -1; m < frames; m++) {
    if (!needed(m)) continue;
    const from = m * hop - hop / 2;
    for (let a = 0; a < channels.length; a += 2) {
      const xa = channels[a]!;
      const xb = channels[a + 1];
      for (let k = 0; k < size; k++) {
        const s = from + k;
        zr[k] = s >= 0 && s < xa.length ? xa[s]! * win[k]! : 0;
        zi[k] = xb && s >= 0 && s < xb.length ? xb[s]! * win[k]! : 0;
      }
      fft(zr, zi);
      const ar = re[a]!;
      const ai = im[a]!;
      const br = re[a + 1];
      const bi = im[a + 1];
      for (let k = 0; k <= hop; k++) {
        const n = (size - k) % size;
        ar[k] = (zr[k]! + zr[n]!) / 2;
        ai[k] = (zi[k]! - zi[n]!) / 2;
        if (br && bi) {
          br[k] = (zi[k]! + zi[n]!) / 2;
          bi[k] = (zr[n]! - zr[k]!) / 2;
        }
      }
    }
    yield { m, re, im };
  }
}

/**
 * Each channel less the part of it the other channels predict, per frequency.
 *
 * For channel i the prediction is a least-squares fit, per STFT bin, of its spectrum on the
 * other channels' spectra in the same frame (a gain and a phase per frequency and
 * neighbour), over the frames `learn[i]` marks: frames where i carries only bleed. Copied
 * bleed, or bleed that arrives a few ms late, is then cancelled; a room's reverberant tail,
 * longer than the 2 · hop window, is not, and stays in the residual.
 *
 * @param channels mono signals on one time base
 * @param hop samples per frame of `learn`, even (the STFT hop; the window is twice as long,
 *   centred on the frame)
 * @param learn per channel, per frame: 1 where the channel's content is its neighbours' bleed
 * @returns one residual signal per channel, as long as its input
 * @example
 * const residual = cancelCrosstalk([micA, micB], 512, [bleedOnlyA, bleedOnlyB]);
 */
export function cancelCrosstalk(channels: readonly Float32Array[], hop: number, learn: readonly Uint8Array[]): Float32Array[] {
  const n = channels.length;
  if (learn.length !== n) throw new RangeError(`learn has ${learn.length} masks for ${n} channels`);
  if (hop <= 0 || hop % 2 !== 0) throw new RangeError(`hop ${hop} is not a positive even number of samples`);
  if (n < 2) return channels.map((c) => Float32Array.from(c));
  const size = 2 * hop;
  const bins = hop + 1;
  const length = Math.max(...channels.map((c) => c.length));
  const frames = Math.ceil(length / hop) + 1;
  // Target i's regressors: the other channels, in order.
  const d = n - 1;
  const others = channels.map((_, i) => channels.map((__, j) => j).filter((j) => j !== i));
  /** Target i's regressors in a frame: the other channels' spectra (`parts`: re or im), in order. */
  const neighbours = (i: number, parts: readonly Float64Array[]): Float64Array[] => others[i]!.map((j) => parts[j]!);

  // Pass 1, over the frames learnt from: the normal equations per channel and bin, R w = p
  // with R = Σ conj(x) xᵀ over the neighbours' spectra x and p = Σ conj(x) y.
  const Rr = channels.map(() => new Float64Array(bins * d * d));
  const Ri = channels.map(() => new Float64Array(bins * d * d));
  const Pr = channels.map(() => new Float64Array(bins * d));
  const Pi = channels.map(() => new Float64Array(bins * d));
  const learnt = (m: number): boolean => learn.some((l) => m < l.length && l[m] === 1);
  for (const { m, re, im } of spectra(channels, hop, frames, learnt)) {
    for (let i = 0; i < n; i++) {
      if (m >= learn[i]!.length || !learn[i]![m]) continue;
      const rr = Rr[i]!;
      const ri = Ri[i]!;
      const pr = Pr[i]!;
      const pi = Pi[i]!;
      const yRe = re[i]!;
      const yIm = im[i]!;
      const xRe = neighbours(i, re);
      const xIm = neighbours(i, im);
      for (let k = 0; k < bins; k++) {
        const yr = yRe[k]!;
        const yi = yIm[k]!;
        const base = k * d * d;
        // conj(x_a) · x_b, the upper triangle (R is Hermitian; the lower is filled below).
        for (let a = 0; a < d; a++) {
          const ar = xRe[a]![k]!;
          const ai = -xIm[a]![k]!;
          for (let b = a; b < d; b++) {
            const br = xRe[b]![k]!;
            const bi = xIm[b]![k]!;
            const at = base + a * d + b;
            rr[at] = rr[at]! + ar * br - ai * bi;
            ri[at] = ri[at]! + ar * bi + ai * br;
          }
          pr[k * d + a] = pr[k * d + a]! + ar * yr - ai * yi;
          pi[k * d + a] = pi[k * d + a]! + ar * yi + ai * yr;
        }
      }
    }
  }
  // Weights per channel and bin, with a little diagonal loading for bins the frames hardly reach.
  const Wr = channels.map(() => new Float64Array(bins * d));
  const Wi = channels.map(() => new Float64Array(bins * d));
  const ar = new Float64Array(d * d);
  const ai = new Float64Array(d * d);
  const br = new Float64Array(d);
  const bi = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < bins; k++) {
      ar.set(Rr[i]!.subarray(k * d * d, (k + 1) * d * d));
      ai.set(Ri[i]!.subarray(k * d * d, (k + 1) * d * d));
      for (let a = 0; a < d; a++) {
        for (let b = 0; b < a; b++) {
          ar[a * d + b] = ar[b * d + a]!;
          ai[a * d + b] = -ai[b * d + a]!;
        }
      }
      let trace = 0;
      for (let a = 0; a < d; a++) trace += ar[a * d + a]!;
      if (trace <= 0) continue;
      for (let a = 0; a < d; a++) ar[a * d + a] = ar[a * d + a]! + (1e-3 * trace) / d;
      br.set(Pr[i]!.subarray(k * d, (k + 1) * d));
      bi.set(Pi[i]!.subarray(k * d, (k + 1) * d));
      solveComplex(ar, ai, br, bi, d);
      Wr[i]!.set(br, k * d);
      Wi[i]!.set(bi, k * d);
    }
  }

  // Pass 2: subtract the prediction and overlap-add, two channels per inverse FFT.
  const out = channels.map((c) => new Float32Array(c.length));
  const win = sqrtHann(size);
  const resRe = channels.map(() => new Float64Array(bins));
  const resIm = channels.map(() => new Float64Array(bins));
  const zr = new Float64Array(size);
  const zi = new Float64Array(size);
  for (const { m, re, im } of spectra(channels, hop, frames)) {
    for (let i = 0; i < n; i++) {
      const wr = Wr[i]!;
      const wi = Wi[i]!;
      const er = resRe[i]!;
      const ei = resIm[i]!;
      const xRe = neighbours(i, re);
      const xIm = neighbours(i, im);
      for (let k = 0; k < bins; k++) {
        let sr = re[i]![k]!;
        let si = im[i]![k]!;
        for (let r = 0; r < d; r++) {
          const gr = xRe[r]![k]!;
          const gi = xIm[r]![k]!;
          const w0 = wr[k * d + r]!;
          const w1 = wi[k * d + r]!;
          sr -= w0 * gr - w1 * gi;
          si -= w0 * gi + w1 * gr;
        }
        er[k] = sr;
        ei[k] = si;
      }
      // A real signal's spectrum is real at 0 and at the Nyquist bin.
      ei[0] = 0;
      ei[hop] = 0;
    }
    const from = m * hop - hop / 2;
    for (let a = 0; a < n; a += 2) {
      // Z = E_a + j·E_b over the whole circle; its inverse is e_a + j·e_b.
      const ar = resRe[a]!;
      const ai = resIm[a]!;
      const br = resRe[a + 1];
      const bi = resIm[a + 1];
      for (let k = 0; k <= hop; k++) {
        const bR = br ? br[k]! : 0;
        const bI = bi ? bi[k]! : 0;
        zr[k] = ar[k]! - bI;
        zi[k] = ai[k]! + bR;
        if (k > 0 && k < hop) {
          zr[size - k] = ar[k]! + bI;
          zi[size - k] = -ai[k]! + bR;
        }
      }
      fft(zr, zi, true);
      const oa = out[a]!;
      const ob = out[a + 1];
      for (let s = 0; s < size; s++) {
        const t = from + s;
        if (t < 0 || t >= oa.length) continue;
        oa[t] = oa[t]! + (zr[s]! / size) * win[s]!;
        if (ob && t < ob.length) ob[t] = ob[t]! + (zi[s]! / size) * win[s]!;
      }
    }
  }
  return out;
}
