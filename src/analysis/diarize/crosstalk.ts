/**
 * Crosstalk cancellation between mics: each channel less what the other channels predict of
 * it, the prediction learnt where the channel carries only its neighbours' bleed. What is
 * left is the channel's own voice (and its own noise), even when a louder neighbour talks
 * over it. Pure: arrays in (the fit also reads channels by range), arrays out.
 *
 * @module
 */
import { fft } from '../signal/signal-fft.ts';
import { asReader, type SampleInput, type SampleReader } from '../signal/sample-reader.ts';

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
 * Short-time spectra (bins 0 … hop) of every channel, frame by frame: frame `m` (from
 * `firstFrame`, −1 by default, to `frames − 1`) is the `2 · hop` samples centred on samples
 * [m · hop, (m + 1) · hop), windowed; the arrays hold the samples from `origin` on. Two real
 * channels share one complex FFT.
 */
function* spectra(
  channels: readonly Float32Array[],
  hop: number,
  frames: number,
  needed: (m: number) => boolean = () => true,
  origin = 0,
  firstFrame = -1,
): Generator<{ m: number; re: Float64Array[]; im: Float64Array[] }> {
  const size = 2 * hop;
  const win = sqrtHann(size);
  const zr = new Float64Array(size);
  const zi = new Float64Array(size);
  const re = channels.map(() => new Float64Array(hop + 1));
  const im = channels.map(() => new Float64Array(hop + 1));
  // From frame −1: its second half and frame 0's first half make up the signal's first hop / 2 samples.
  for (let m = firstFrame; m < frames; m++) {
    if (!needed(m)) continue;
    // The frame's first sample in the arrays (they start at absolute sample `origin`).
    const from = m * hop - hop / 2 - origin;
    for (let a = 0; a < channels.length; a += 2) {
      const xa = channels[a]!;
      const xb = channels[a + 1];
      if (from >= 0 && from + size <= xa.length && (!xb || from + size <= xb.length)) {
        for (let k = 0; k < size; k++) {
          zr[k] = xa[from + k]! * win[k]!;
          zi[k] = xb ? xb[from + k]! * win[k]! : 0;
        }
      } else {
        for (let k = 0; k < size; k++) {
          const s = from + k;
          zr[k] = s >= 0 && s < xa.length ? xa[s]! * win[k]! : 0;
          zi[k] = xb && s >= 0 && s < xb.length ? xb[s]! * win[k]! : 0;
        }
      }
      fft(zr, zi);
      // Z = A + j·B: A[k] = (Z[k] + conj Z[−k]) / 2, B[k] = (Z[k] − conj Z[−k]) / 2j.
      const ar = re[a]!;
      const ai = im[a]!;
      const br = re[a + 1];
      const bi = im[a + 1];
      for (let k = 0; k <= hop; k++) {
        const n = k === 0 ? 0 : size - k;
        ar[k] = (zr[k]! + zr[n]!) / 2;
        ai[k] = (zi[k]! - zi[n]!) / 2;
      }
      if (br && bi) {
        for (let k = 0; k <= hop; k++) {
          const n = k === 0 ? 0 : size - k;
          br[k] = (zi[k]! + zi[n]!) / 2;
          bi[k] = (zr[n]! - zr[k]!) / 2;
        }
      }
    }
    yield { m, re, im };
  }
}

/** Needed frames further apart than this are read separately by {@link spectraRead}. */
const READ_GAP_FRAMES = 8;
/** The most frames {@link spectraRead} reads at once (about a minute at 16 kHz). */
const READ_RUN_FRAMES = 2048;

/**
 * {@link spectra} of the `needed` frames of channels read by range: each run of needed frames
 * (closer than READ_GAP_FRAMES) read with the samples its windows reach, so that only a run
 * is held. The same spectra, to the bit, as on the whole channels.
 */
function* spectraRead(
  channels: readonly SampleReader[],
  hop: number,
  frames: number,
  needed: (m: number) => boolean,
): Generator<{ m: number; re: Float64Array[]; im: Float64Array[] }> {
  for (let m = -1; m < frames;) {
    if (!needed(m)) {
      m++;
      continue;
    }
    let last = m;
    for (let k = m + 1; k < frames && k - m < READ_RUN_FRAMES && k - last <= READ_GAP_FRAMES; k++)
      if (needed(k)) last = k;
    const origin = Math.max(0, m * hop - hop / 2);
    const end = last * hop - hop / 2 + 2 * hop;
    yield* spectra(
      channels.map((c) => c.read(origin, end)),
      hop,
      last + 1,
      needed,
      origin,
      m,
    );
    m = last + 1;
  }
}

/**
 * Frames a channel's fit is learnt on, about at most: 4096 frames of 32 ms are 131 s of bleed,
 * for at most 3 weights per frequency. A long file's bleed-only frames are thinned to about this
 * many, evenly spread, which saves a third of the work on an hour (the fit's spectra are taken
 * only on the frames it uses).
 */
export const LEARN_FRAMES_MAX = 4096;

/**
 * The masks thinned to every `stride`-th frame, one stride for all channels so that they learn
 * on the same frames (a frame where one neighbour talks is bleed-only on all the others): the
 * smallest stride that brings the channel with the most marked frames to about `max`.
 */
function thin(masks: readonly Uint8Array[], max: number): readonly Uint8Array[] {
  let most = 0;
  for (const mask of masks) {
    let count = 0;
    for (const v of mask) count += v;
    most = Math.max(most, count);
  }
  const stride = Math.ceil(most / max);
  if (stride <= 1) return masks;
  return masks.map((mask) => mask.map((v, t) => (v && t % stride === 0 ? 1 : 0)));
}

/** Options of {@link cancelCrosstalk}. */
export interface CrosstalkOptions {
  /** About the most frames a channel's fit is learnt on: a long file's `learn` frames are thinned to every k-th (default {@link LEARN_FRAMES_MAX}). */
  maxLearnFrames?: number;
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
 * @param options.maxLearnFrames about the most frames a channel's fit uses (a long file's are thinned)
 * @returns one residual signal per channel, as long as its input
 * @example
 * const residual = cancelCrosstalk([micA, micB], 512, [bleedOnlyA, bleedOnlyB]);
 */
export function cancelCrosstalk(
  channels: readonly Float32Array[],
  hop: number,
  learn: readonly Uint8Array[],
  options: CrosstalkOptions = {},
): Float32Array[] {
  const out = channels.map((c) => new Float32Array(c.length));
  cancelCrosstalkBlocks(
    channels,
    hop,
    learn,
    (start, blocks) => blocks.forEach((b, i) => b.length > 0 && out[i]!.set(b, start)),
    options,
  );
  return out;
}

/**
 * Receives {@link cancelCrosstalkBlocks}' residuals block by block: samples `start` … of every
 * channel (each block cut at its channel's end). The blocks are views, valid during the call.
 */
export type ResidualSink = (start: number, blocks: readonly Float32Array[]) => void;

/** Samples of residual held before they are handed on: memory stays flat in the length. */
const RESIDUAL_BLOCK = 1 << 16;

/** Throws on arguments {@link learnCrosstalk} cannot use; returns the learn-frame cap. */
function checkLearnArgs(n: number, hop: number, learn: readonly Uint8Array[], options: CrosstalkOptions): number {
  const maxLearnFrames = options.maxLearnFrames ?? LEARN_FRAMES_MAX;
  if (learn.length !== n) throw new RangeError(`learn has ${learn.length} masks for ${n} channels`);
  if (hop <= 0 || hop % 2 !== 0) throw new RangeError(`hop ${hop} is not a positive even number of samples`);
  if (!(maxLearnFrames >= 1))
    throw new RangeError(`maxLearnFrames ${maxLearnFrames} is not a positive number of frames`);
  return maxLearnFrames;
}

/**
 * {@link cancelCrosstalk} handing the residuals to `sink` in consecutive blocks as they are
 * final, so an hour of them is never held whole (the caller measures their levels as they come):
 * {@link learnCrosstalk}, then {@link crosstalkResiduals}.
 */
export function cancelCrosstalkBlocks(
  channels: readonly Float32Array[],
  hop: number,
  learn: readonly Uint8Array[],
  sink: ResidualSink,
  options: CrosstalkOptions = {},
): void {
  checkLearnArgs(channels.length, hop, learn, options);
  if (channels.length < 2) {
    if (channels.length === 1)
      for (let start = 0; start < channels[0]!.length; start += RESIDUAL_BLOCK)
        sink(start, [channels[0]!.subarray(start, start + RESIDUAL_BLOCK)]);
    return;
  }
  crosstalkResiduals(channels, learnCrosstalk(channels, hop, learn, options), sink);
}

/**
 * The fitted prediction of each channel from the others ({@link learnCrosstalk}): for channel
 * i, neighbour r's complex weight for bin k at `r · (hop + 1) + k` of `re[i]` and `im[i]`.
 */
export interface CrosstalkWeights {
  hop: number;
  re: Float64Array[];
  im: Float64Array[];
}

/**
 * Pass 1 of {@link cancelCrosstalk}: the least-squares prediction of each channel from the
 * others, per bin, over the frames `learn` marks (thinned to about `maxLearnFrames`).
 *
 * Over 80 lines on purpose: the hot loop over frames x channels x bins shares the flat
 * normal-equation arrays with the solve after it.
 */
export function learnCrosstalk(
  inputs: readonly SampleInput[],
  hop: number,
  learn: readonly Uint8Array[],
  options: CrosstalkOptions = {},
): CrosstalkWeights {
  const channels = inputs.map(asReader);
  const n = channels.length;
  const maxLearnFrames = checkLearnArgs(n, hop, learn, options);
  const bins = hop + 1;
  const length = Math.max(...channels.map((c) => c.length));
  const frames = Math.ceil(length / hop) + 1;
  // Target i's regressors: the other channels, in order.
  const d = n - 1;
  const others = channels.map((_, i) => channels.map((__, j) => j).filter((j) => j !== i));
  /** Target i's regressors in a frame: the other channels' spectra (`parts`: re or im), in order. */
  const neighbours = (i: number, parts: readonly Float64Array[]): Float64Array[] => others[i]!.map((j) => parts[j]!);

  // Pass 1, over the frames learnt from: the normal equations per channel and bin, R w = p
  // with R = Σ conj(x) xᵀ over the neighbours' spectra x and p = Σ conj(x) y. Stored bin-inner:
  // R's entry (a, b) for bin k at (a · d + b) · bins + k, p's entry a at a · bins + k.
  const Rr = channels.map(() => new Float64Array(bins * d * d));
  const Ri = channels.map(() => new Float64Array(bins * d * d));
  const Pr = channels.map(() => new Float64Array(bins * d));
  const Pi = channels.map(() => new Float64Array(bins * d));
  const used = thin(learn, maxLearnFrames);
  const learnt = (m: number): boolean => used.some((l) => m < l.length && l[m] === 1);
  for (const { m, re, im } of spectraRead(channels, hop, frames, learnt)) {
    for (let i = 0; i < n; i++) {
      if (m >= used[i]!.length || !used[i]![m]) continue;
      const rr = Rr[i]!;
      const ri = Ri[i]!;
      const pr = Pr[i]!;
      const pi = Pi[i]!;
      const yRe = re[i]!;
      const yIm = im[i]!;
      const xRe = neighbours(i, re);
      const xIm = neighbours(i, im);
      for (let a = 0; a < d; a++) {
        const aRe = xRe[a]!;
        const aIm = xIm[a]!;
        // conj(x_a) · x_b, the upper triangle (R is Hermitian; the lower is filled below).
        for (let b = a; b < d; b++) {
          const bRe = xRe[b]!;
          const bIm = xIm[b]!;
          const o = (a * d + b) * bins;
          for (let k = 0; k < bins; k++) {
            rr[o + k] = rr[o + k]! + aRe[k]! * bRe[k]! + aIm[k]! * bIm[k]!;
            ri[o + k] = ri[o + k]! + aRe[k]! * bIm[k]! - aIm[k]! * bRe[k]!;
          }
        }
        const o = a * bins;
        for (let k = 0; k < bins; k++) {
          pr[o + k] = pr[o + k]! + aRe[k]! * yRe[k]! + aIm[k]! * yIm[k]!;
          pi[o + k] = pi[o + k]! + aRe[k]! * yIm[k]! - aIm[k]! * yRe[k]!;
        }
      }
    }
  }
  // Weights per channel and bin (neighbour r's for bin k at r · bins + k), with a little
  // diagonal loading for bins the frames hardly reach.
  const Wr = channels.map(() => new Float64Array(bins * d));
  const Wi = channels.map(() => new Float64Array(bins * d));
  const ar = new Float64Array(d * d);
  const ai = new Float64Array(d * d);
  const br = new Float64Array(d);
  const bi = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < bins; k++) {
      let trace = 0;
      for (let a = 0; a < d; a++) {
        for (let b = a; b < d; b++) {
          const o = (a * d + b) * bins + k;
          ar[a * d + b] = Rr[i]![o]!;
          ai[a * d + b] = Ri[i]![o]!;
          ar[b * d + a] = Rr[i]![o]!;
          ai[b * d + a] = -Ri[i]![o]!;
        }
        trace += ar[a * d + a]!;
        br[a] = Pr[i]![a * bins + k]!;
        bi[a] = Pi[i]![a * bins + k]!;
      }
      if (trace <= 0) continue;
      for (let a = 0; a < d; a++) ar[a * d + a] = ar[a * d + a]! + (1e-3 * trace) / d;
      solveComplex(ar, ai, br, bi, d);
      for (let r = 0; r < d; r++) {
        Wr[i]![r * bins + k] = br[r]!;
        Wi[i]![r * bins + k] = bi[r]!;
      }
    }
  }

  return { hop, re: Wr, im: Wi };
}

/**
 * Pass 2 of {@link cancelCrosstalk}: each channel less its prediction (`weights`), handed to
 * `sink` block by block, for the output samples [`from`, `to`) only (by default all of them);
 * the result there is the same to the bit as the whole pass gives. The arrays may start at
 * absolute sample `origin` (then they run to the channels' ends): they must reach back to
 * `from − 2 · hop`, where the first frame that touches `from` starts.
 *
 * Over 80 lines on purpose: the hot loop over frames x channels x bins shares its spectra,
 * weights and rolling output window.
 */
export function crosstalkResiduals(
  channels: readonly Float32Array[],
  weights: CrosstalkWeights,
  sink: ResidualSink,
  range: { from?: number; to?: number; origin?: number } = {},
): void {
  const n = channels.length;
  const hop = weights.hop;
  const size = 2 * hop;
  const bins = hop + 1;
  const d = n - 1;
  const origin = range.origin ?? 0;
  const lengths = channels.map((c) => origin + c.length);
  const length = Math.max(...lengths);
  const frames = Math.ceil(length / hop) + 1;
  const first = range.from ?? 0;
  const last = Math.min(range.to ?? length, length);
  if (origin > Math.max(0, first - size))
    throw new RangeError(`crosstalkResiduals: the arrays start at ${origin}, after ${first - size}`);
  // The frames that reach [first, last): frame m covers [m · hop − hop / 2, m · hop − hop / 2 + size).
  const mFirst = Math.max(-1, Math.floor((first + hop / 2 - size) / hop) + 1);
  const mEnd = Math.min(frames, Math.ceil((last + hop / 2) / hop));
  const others = channels.map((_, i) => channels.map((__, j) => j).filter((j) => j !== i));
  const neighbours = (i: number, parts: readonly Float64Array[]): Float64Array[] => others[i]!.map((j) => parts[j]!);
  const Wr = weights.re;
  const Wi = weights.im;
  // Pass 2: subtract the prediction and overlap-add, two channels per inverse FFT, into a
  // rolling window of the output that starts at sample `base`: what lies before a frame's
  // start is final (every frame that reaches it is done) and goes to the sink.
  const window = RESIDUAL_BLOCK + size;
  const out = channels.map(() => new Float32Array(window));
  let base = Math.max(0, mFirst * hop - hop / 2);
  const handOn = (to: number): void => {
    if (to <= base) return;
    // Samples before `first` are left out: frames before `mFirst` would add to them.
    const at = Math.max(base, first);
    if (to > at)
      sink(
        at,
        out.map((o, i) => o.subarray(at - base, Math.max(at - base, Math.min(to, lengths[i]!) - base))),
      );
    for (const o of out) {
      o.copyWithin(0, to - base);
      o.fill(0, window - (to - base));
    }
    base = to;
  };
  // The synthesis window with the inverse FFT's 1 / size in it.
  const synthesis = sqrtHann(size).map((w) => w / size);
  const resRe = channels.map(() => new Float64Array(bins));
  const resIm = channels.map(() => new Float64Array(bins));
  const zr = new Float64Array(size);
  const zi = new Float64Array(size);
  for (const { m, re, im } of spectra(channels, hop, mEnd, undefined, origin, mFirst)) {
    for (let i = 0; i < n; i++) {
      const wr = Wr[i]!;
      const wi = Wi[i]!;
      const er = resRe[i]!;
      const ei = resIm[i]!;
      er.set(re[i]!);
      ei.set(im[i]!);
      const xRe = neighbours(i, re);
      const xIm = neighbours(i, im);
      for (let r = 0; r < d; r++) {
        const gRe = xRe[r]!;
        const gIm = xIm[r]!;
        const o = r * bins;
        for (let k = 0; k < bins; k++) {
          const w0 = wr[o + k]!;
          const w1 = wi[o + k]!;
          er[k] = er[k]! - (w0 * gRe[k]! - w1 * gIm[k]!);
          ei[k] = ei[k]! - (w0 * gIm[k]! + w1 * gRe[k]!);
        }
      }
      // A real signal's spectrum is real at 0 and at the Nyquist bin.
      ei[0] = 0;
      ei[hop] = 0;
    }
    const from = m * hop - hop / 2;
    if (from + size > base + window) handOn(from);
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
      const la = lengths[a]!;
      const lb = ob ? lengths[a + 1]! : 0;
      const at = from - base;
      if (from >= 0 && from + size <= la && (!ob || from + size <= lb)) {
        for (let s = 0; s < size; s++) oa[at + s] = oa[at + s]! + zr[s]! * synthesis[s]!;
        if (ob) for (let s = 0; s < size; s++) ob[at + s] = ob[at + s]! + zi[s]! * synthesis[s]!;
      } else {
        for (let s = 0; s < size; s++) {
          const t = from + s;
          if (t < 0 || t >= la) continue;
          oa[at + s] = oa[at + s]! + zr[s]! * synthesis[s]!;
          if (ob && t < lb) ob[at + s] = ob[at + s]! + zi[s]! * synthesis[s]!;
        }
      }
    }
  }
  handOn(last);
}
