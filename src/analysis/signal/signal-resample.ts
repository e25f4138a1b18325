/**
 * Band-limited resampling (windowed sinc) at any ratio, incremental so a decoder can feed it
 * slice by slice and memory stays proportional to the output. Also used by the sync tests to
 * simulate clock drift (a ratio like 1.0001).
 *
 * @module
 */

/** Options of {@link StreamingResampler}. */
export interface ResamplerOptions {
  /**
   * Half-width of the sinc kernel in zero crossings of the lower of the two rates. More is a
   * sharper anti-aliasing filter and more work; 8 is ample for speech analysis, 16 for tests
   * that need sub-sample accuracy.
   */
  zeroCrossings?: number;
}

/** Kernel table resolution: samples per input-sample unit; linear interpolation between them. */
const TABLE_STEPS = 256;

/**
 * Resamples a mono stream from `inRate` to `outRate`. Output sample `k` is the band-limited value
 * of the input at time `k / outRate` (no delay), so timestamps carry over exactly.
 *
 * @example
 * const r = new StreamingResampler(48000, 16000);
 * for (const chunk of chunks) out.push(r.push(chunk));
 * out.push(r.flush());
 */
export class StreamingResampler {
  readonly inRate: number;
  readonly outRate: number;
  /** Input samples per output sample. */
  private readonly step: number;
  /** Kernel half-width in input samples. */
  private readonly radius: number;
  private readonly scale: number;
  private readonly table: Float32Array;
  /** Pending input; `buf[0]` is absolute input index `bufStart`. */
  private buf = new Float32Array(0);
  private bufLen = 0;
  private bufStart = 0;
  /** Absolute input count pushed so far. */
  private pushed = 0;
  /** Next output index. */
  private k = 0;
  private flushed = false;
  /**
   * Polyphase fast path for rational ratios P/Q with small Q (every integer rate pair in
   * practice, e.g. 48000→16000 is 3/1, 44100→16000 is 441/160): one precomputed filter per
   * output phase, so the inner loop is a plain dot product.
   */
  private readonly poly: { p: number; q: number; half: number; taps: number; weights: Float32Array } | null;
  /**
   * Integer decimation (Q = 1: 48000→16000, 48000→8000, 16000→8000): one phase whose filter is
   * symmetric and zero at every P-th tap (the sinc's zero crossings), so each output is the
   * centre tap plus one multiply per non-zero pair of taps: a third of the work at 3:1.
   */
  private readonly fold: { reach: number; w0: number; offsets: Int32Array; weights: Float32Array } | null;

  constructor(inRate: number, outRate: number, options: ResamplerOptions = {}) {
    if (!(inRate > 0) || !(outRate > 0))
      throw new RangeError(`StreamingResampler: rates must be positive (got ${inRate} → ${outRate})`);
    this.inRate = inRate;
    this.outRate = outRate;
    this.step = inRate / outRate;
    this.scale = Math.min(1, outRate / inRate);
    const zc = options.zeroCrossings ?? 8;
    this.radius = zc / this.scale;
    // h(x) = scale·sinc(scale·x)·blackman(x / radius), tabulated for x ∈ [0, radius].
    const n = Math.ceil(this.radius * TABLE_STEPS) + 2;
    this.table = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const x = i / TABLE_STEPS;
      const u = x / this.radius;
      if (u >= 1) continue;
      const sx = this.scale * x;
      const sinc = sx === 0 ? 1 : Math.sin(Math.PI * sx) / (Math.PI * sx);
      const w = 0.42 + 0.5 * Math.cos(Math.PI * u) + 0.08 * Math.cos(2 * Math.PI * u);
      this.table[i] = this.scale * sinc * w;
    }
    this.poly = null;
    this.fold = null;
    if (Number.isInteger(inRate) && Number.isInteger(outRate)) {
      const g = gcd(inRate, outRate);
      const p = inRate / g;
      const q = outRate / g;
      const half = Math.ceil(this.radius) + 1;
      const taps = 2 * half + 1;
      if (q <= 2048 && q * taps <= 1 << 20) {
        const weights = new Float32Array(q * taps);
        for (let phase = 0; phase < q; phase++) {
          const frac = phase / q;
          for (let d = -half; d <= half; d++) weights[phase * taps + d + half] = this.kernel(Math.abs(frac - d));
        }
        this.poly = { p, q, half, taps, weights };
        if (q === 1) this.fold = foldTaps(weights, half);
      }
    }
  }

  /** The interpolated kernel at distance `x` (input samples). */
  private kernel(x: number): number {
    if (x >= this.radius) return 0;
    const t = x * TABLE_STEPS;
    const ti = t | 0;
    const f = t - ti;
    return this.table[ti]! + (this.table[ti + 1]! - this.table[ti]!) * f;
  }

  /** Adds input samples; returns every output sample that is now fully determined. */
  push(input: Float32Array): Float32Array {
    if (this.flushed) throw new Error('StreamingResampler: push after flush');
    this.append(input);
    this.pushed += input.length;
    return this.emit(this.pushed);
  }

  /** Ends the stream (the input is taken as zero past its end) and returns the remaining output. */
  flush(): Float32Array {
    if (this.flushed) return new Float32Array(0);
    this.flushed = true;
    // Outputs up to the time of the last input sample.
    const total = this.pushed;
    const lastK = total === 0 ? -1 : Math.floor((total - 1) / this.step + 1e-9);
    const out = new Float32Array(Math.max(0, lastK - this.k + 1));
    for (let o = 0; o < out.length; o++, this.k++) out[o] = this.sampleK(this.k);
    return out;
  }

  private append(input: Float32Array): void {
    if (this.bufLen + input.length > this.buf.length) {
      const next = new Float32Array(Math.max(this.bufLen + input.length, this.buf.length * 2, 1024));
      next.set(this.buf.subarray(0, this.bufLen));
      this.buf = next;
    }
    this.buf.set(input, this.bufLen);
    this.bufLen += input.length;
  }

  private emit(available: number): Float32Array {
    // Output k needs inputs up to floor(k·step + radius).
    const maxK = Math.floor((available - 1 - this.radius) / this.step);
    const count = Math.max(0, maxK - this.k + 1);
    const out = new Float32Array(count);
    let o = this.fold ? this.emitFolded(out) : 0;
    for (; o < count; o++, this.k++) out[o] = this.sampleK(this.k);
    // Drop input no later output can reach.
    const keepFrom = Math.max(this.bufStart, Math.floor(this.k * this.step - this.radius) - 1);
    const drop = keepFrom - this.bufStart;
    if (drop > 0) {
      this.buf.copyWithin(0, drop, this.bufLen);
      this.bufLen -= drop;
      this.bufStart = keepFrom;
    }
    return out;
  }

  /**
   * Fills `out` from its start with folded outputs while their taps lie inside the buffer;
   * returns how many (the caller does the rest, at the edges).
   */
  private emitFolded(out: Float32Array): number {
    const fold = this.fold!;
    const p = this.poly!.p;
    const buf = this.buf;
    const offsets = fold.offsets;
    const weights = fold.weights;
    const taps = offsets.length;
    const w0 = fold.w0;
    const reach = fold.reach;
    let c = this.k * p - this.bufStart;
    if (c < reach) return 0;
    const last = Math.min(out.length, Math.floor((this.bufLen - 1 - reach - c) / p) + 1);
    if (taps <= 16) {
      straightFold(buf, out, c, p, last, w0, offsets, weights);
      const done = Math.max(0, last);
      this.k += done;
      return done;
    }
    for (let o = 0; o < last; o++, c += p) {
      let acc = w0 * buf[c]!;
      for (let i = 0; i < taps; i++) {
        const d = offsets[i]!;
        acc += weights[i]! * (buf[c - d]! + buf[c + d]!);
      }
      out[o] = acc;
    }
    const done = Math.max(0, last);
    this.k += done;
    return done;
  }

  /** Output sample `k`, at input position k·step. */
  private sampleK(k: number): number {
    const poly = this.poly;
    if (!poly) return this.sampleAt(k * this.step);
    const fold = this.fold;
    if (fold) {
      const c = k * poly.p - this.bufStart;
      if (c >= fold.reach && c + fold.reach < this.bufLen) {
        const buf = this.buf;
        const offsets = fold.offsets;
        const weights = fold.weights;
        let acc = fold.w0 * buf[c]!;
        for (let i = 0; i < offsets.length; i++) {
          const d = offsets[i]!;
          acc += weights[i]! * (buf[c - d]! + buf[c + d]!);
        }
        return acc;
      }
    }
    const num = k * poly.p; // exact: integers far below 2^53
    const base = Math.floor(num / poly.q);
    const phase = num - base * poly.q;
    const w = poly.weights;
    const wo = phase * poly.taps;
    const first = base - poly.half - this.bufStart;
    const buf = this.buf;
    let acc = 0;
    if (first >= 0 && first + poly.taps <= this.bufLen) {
      for (let t = 0; t < poly.taps; t++) acc += buf[first + t]! * w[wo + t]!;
    } else {
      for (let t = 0; t < poly.taps; t++) {
        const idx = first + t;
        if (idx >= 0 && idx < this.bufLen) acc += buf[idx]! * w[wo + t]!;
      }
    }
    return acc;
  }

  private sampleAt(p: number): number {
    const lo = Math.max(Math.ceil(p - this.radius), this.bufStart);
    const hi = Math.min(Math.floor(p + this.radius), this.bufStart + this.bufLen - 1);
    const table = this.table;
    const buf = this.buf;
    let acc = 0;
    for (let j = lo; j <= hi; j++) {
      const t = Math.abs(p - j) * TABLE_STEPS;
      const ti = t | 0;
      const f = t - ti;
      const h = table[ti]! + (table[ti + 1]! - table[ti]!) * f;
      acc += buf[j - this.bufStart]! * h;
    }
    return acc;
  }
}

/**
 * The folded dot product for filters of up to 16 pairs (48000→16000 has 16, 16000→8000 has 8)
 * written out with the offsets and weights in locals: V8 runs it about 2.5 times as fast as the
 * loop over the pairs. Missing pairs get weight 0 at offset 0.
 */
function straightFold(
  buf: Float32Array,
  out: Float32Array,
  start: number,
  step: number,
  count: number,
  centre: number,
  offsets: Int32Array,
  weights: Float32Array,
): void {
  const d = new Int32Array(16);
  const w = new Float64Array(16);
  d.set(offsets);
  w.set(weights);
  const d0 = d[0]!;
  const d1 = d[1]!;
  const d2 = d[2]!;
  const d3 = d[3]!;
  const d4 = d[4]!;
  const d5 = d[5]!;
  const d6 = d[6]!;
  const d7 = d[7]!;
  const d8 = d[8]!;
  const d9 = d[9]!;
  const d10 = d[10]!;
  const d11 = d[11]!;
  const d12 = d[12]!;
  const d13 = d[13]!;
  const d14 = d[14]!;
  const d15 = d[15]!;
  const w0 = w[0]!;
  const w1 = w[1]!;
  const w2 = w[2]!;
  const w3 = w[3]!;
  const w4 = w[4]!;
  const w5 = w[5]!;
  const w6 = w[6]!;
  const w7 = w[7]!;
  const w8 = w[8]!;
  const w9 = w[9]!;
  const w10 = w[10]!;
  const w11 = w[11]!;
  const w12 = w[12]!;
  const w13 = w[13]!;
  const w14 = w[14]!;
  const w15 = w[15]!;
  let c = start;
  for (let o = 0; o < count; o++, c += step) {
    out[o] =
      w0 * (buf[c - d0]! + buf[c + d0]!) +
      w1 * (buf[c - d1]! + buf[c + d1]!) +
      w2 * (buf[c - d2]! + buf[c + d2]!) +
      w3 * (buf[c - d3]! + buf[c + d3]!) +
      w4 * (buf[c - d4]! + buf[c + d4]!) +
      w5 * (buf[c - d5]! + buf[c + d5]!) +
      w6 * (buf[c - d6]! + buf[c + d6]!) +
      w7 * (buf[c - d7]! + buf[c + d7]!) +
      w8 * (buf[c - d8]! + buf[c + d8]!) +
      w9 * (buf[c - d9]! + buf[c + d9]!) +
      w10 * (buf[c - d10]! + buf[c + d10]!) +
      w11 * (buf[c - d11]! + buf[c + d11]!) +
      w12 * (buf[c - d12]! + buf[c + d12]!) +
      w13 * (buf[c - d13]! + buf[c + d13]!) +
      w14 * (buf[c - d14]! + buf[c + d14]!) +
      w15 * (buf[c - d15]! + buf[c + d15]!) +
      centre * buf[c]!;
  }
}

/**
 * The non-zero pairs of a symmetric one-phase filter (`weights[half ± d]`), for the folded dot
 * product. Taps below a billionth of the centre one (the sinc's crossings, 1e-17 in the table)
 * are dropped.
 */
function foldTaps(
  weights: Float32Array,
  half: number,
): { reach: number; w0: number; offsets: Int32Array; weights: Float32Array } {
  const w0 = weights[half]!;
  const offsets: number[] = [];
  const pairs: number[] = [];
  for (let d = 1; d <= half; d++) {
    const w = weights[half + d]!;
    if (Math.abs(w) > Math.abs(w0) * 1e-9) {
      offsets.push(d);
      pairs.push(w);
    }
  }
  return {
    reach: offsets.length ? offsets[offsets.length - 1]! : 0,
    w0,
    offsets: Int32Array.from(offsets),
    weights: Float32Array.from(pairs),
  };
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * Resamples a whole mono signal (see {@link StreamingResampler}).
 *
 * @example
 * const drifted = resample(signal, 8000, 8000 * (1 + 100e-6)); // a clock 100 ppm fast
 */
export function resample(
  input: Float32Array,
  inRate: number,
  outRate: number,
  options: ResamplerOptions = {},
): Float32Array {
  if (inRate === outRate) return input.slice();
  const r = new StreamingResampler(inRate, outRate, options);
  const a = r.push(input);
  const b = r.flush();
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
