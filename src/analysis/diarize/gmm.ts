/**
 * Diagonal-covariance Gaussian mixtures: a universal background model (UBM) trained on the
 * file by EM, MAP adaptation of its means, and frame scoring with Gaussian selection.
 *
 * Features are row-major `Float32Array`s of `dim` values per frame.
 *
 * @module
 */
import { seededRandom } from '../signal/random.ts';

/** A diagonal GMM. `means`/`variances` are component-major: component c, dim d at c·dim + d. */
export interface DiagGmm {
  components: number;
  dim: number;
  weights: Float64Array;
  means: Float64Array;
  variances: Float64Array;
}

const LOG_2PI = Math.log(2 * Math.PI);
const VAR_FLOOR = 1e-3;

/** Per-component constant: log w − ½(D log 2π + Σ log σ²). */
function logConstants(g: DiagGmm): Float64Array {
  const out = new Float64Array(g.components);
  for (let c = 0; c < g.components; c++) {
    let s = g.dim * LOG_2PI;
    for (let d = 0; d < g.dim; d++) s += Math.log(g.variances[c * g.dim + d]!);
    out[c] = Math.log(Math.max(g.weights[c]!, 1e-12)) - 0.5 * s;
  }
  return out;
}

function logSumExp(values: Float64Array, n: number): number {
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (values[i]! > max) max = values[i]!;
  if (max === -Infinity) return max;
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.exp(values[i]! - max);
  return max + Math.log(s);
}

/** Log density of every component for one frame, into `out`. */
function componentLogDensities(
  g: DiagGmm,
  consts: Float64Array,
  x: Float32Array,
  offset: number,
  out: Float64Array,
): void {
  const { dim } = g;
  for (let c = 0; c < g.components; c++) {
    let q = 0;
    const base = c * dim;
    for (let d = 0; d < dim; d++) {
      const diff = x[offset + d]! - g.means[base + d]!;
      q += (diff * diff) / g.variances[base + d]!;
    }
    out[c] = consts[c]! - 0.5 * q;
  }
}

/**
 * Trains a UBM on `frames` (indices into `features`) with k-means++-style seeding from a
 * seeded generator, then `iterations` EM steps. Deterministic for a given seed.
 */
export function trainUbm(
  features: Float32Array,
  dim: number,
  frames: readonly number[],
  components: number,
  iterations = 10,
  seed = 1,
): DiagGmm {
  const rand = seededRandom(seed);
  const n = frames.length;
  if (n === 0) throw new RangeError('trainUbm: no frames');
  const k = Math.min(components, Math.max(1, Math.floor(n / 10)));
  const gVar = globalVariances(features, dim, frames);
  const means = seedMeans(features, dim, frames, k, rand);
  const gmm: DiagGmm = {
    components: k,
    dim,
    weights: new Float64Array(k).fill(1 / k),
    means,
    variances: new Float64Array(k * dim).map((_, i) => gVar[i % dim]!),
  };
  for (let it = 0; it < iterations; it++) emStep(gmm, features, frames);
  return gmm;
}

/** Per-dimension variance of the frames (floored): the UBM's initial variances. */
function globalVariances(features: Float32Array, dim: number, frames: readonly number[]): Float64Array {
  const n = frames.length;
  const gMean = new Float64Array(dim);
  const gVar = new Float64Array(dim);
  for (const t of frames) for (let d = 0; d < dim; d++) gMean[d] = gMean[d]! + features[t * dim + d]!;
  for (let d = 0; d < dim; d++) gMean[d] = gMean[d]! / n;
  for (const t of frames) {
    for (let d = 0; d < dim; d++) {
      const v = features[t * dim + d]! - gMean[d]!;
      gVar[d] = gVar[d]! + v * v;
    }
  }
  for (let d = 0; d < dim; d++) gVar[d] = Math.max(VAR_FLOOR, gVar[d]! / n);
  return gVar;
}

/** k initial means, k-means++ style from the seeded generator. */
function seedMeans(
  features: Float32Array,
  dim: number,
  frames: readonly number[],
  k: number,
  rand: () => number,
): Float64Array {
  const n = frames.length;
  // Seeding: k-means++ on a subsample keeps it cheap and spread out.
  const sample: number[] = [];
  const step = Math.max(1, Math.floor(n / 4000));
  for (let i = 0; i < n; i += step) sample.push(frames[i]!);
  const means = new Float64Array(k * dim);
  const first = sample[Math.floor(rand() * sample.length)]!;
  for (let d = 0; d < dim; d++) means[d] = features[first * dim + d]!;
  const dist = new Float64Array(sample.length).fill(Infinity);
  for (let c = 1; c < k; c++) {
    let total = 0;
    sample.forEach((t, i) => {
      let s = 0;
      for (let d = 0; d < dim; d++) {
        const v = features[t * dim + d]! - means[(c - 1) * dim + d]!;
        s += v * v;
      }
      if (s < dist[i]!) dist[i] = s;
      total += dist[i]!;
    });
    let r = rand() * total;
    let pick = sample.length - 1;
    for (let i = 0; i < sample.length; i++) {
      r -= dist[i]!;
      if (r <= 0) {
        pick = i;
        break;
      }
    }
    const t = sample[pick]!;
    for (let d = 0; d < dim; d++) means[c * dim + d] = features[t * dim + d]!;
  }
  return means;
}

/** One EM step of the UBM on the frames (an empty component stays where it was). */
function emStep(gmm: DiagGmm, features: Float32Array, frames: readonly number[]): void {
  const { components: k, dim } = gmm;
  const n = frames.length;
  const post = new Float64Array(k);
  const consts = logConstants(gmm);
  const nk = new Float64Array(k);
  const fk = new Float64Array(k * dim);
  const sk = new Float64Array(k * dim);
  for (const t of frames) {
    const off = t * dim;
    componentLogDensities(gmm, consts, features, off, post);
    const lse = logSumExp(post, k);
    for (let c = 0; c < k; c++) {
      const g = Math.exp(post[c]! - lse);
      if (g < 1e-6) continue;
      nk[c] = nk[c]! + g;
      for (let d = 0; d < dim; d++) {
        const x = features[off + d]!;
        fk[c * dim + d] = fk[c * dim + d]! + g * x;
        sk[c * dim + d] = sk[c * dim + d]! + g * x * x;
      }
    }
  }
  for (let c = 0; c < k; c++) {
    const cnt = nk[c]!;
    if (cnt < 1e-3) continue; // keep an empty component where it was
    gmm.weights[c] = cnt / n;
    for (let d = 0; d < dim; d++) {
      const m = fk[c * dim + d]! / cnt;
      gmm.means[c * dim + d] = m;
      gmm.variances[c * dim + d] = Math.max(VAR_FLOOR, sk[c * dim + d]! / cnt - m * m);
    }
  }
}

/** Top-C UBM components per frame with their posteriors (Gaussian selection). */
export interface FramePosteriors {
  /** Components kept per frame. */
  top: number;
  /** frame-major: frame i (i-th of the frames passed), slot j → component index. */
  index: Int32Array;
  posterior: Float64Array;
}

/** UBM posteriors of `frames`, keeping the `top` most likely components per frame. */
export function ubmPosteriors(
  ubm: DiagGmm,
  features: Float32Array,
  frames: readonly number[],
  top = 5,
): FramePosteriors {
  const k = ubm.components;
  const c = Math.min(top, k);
  const consts = logConstants(ubm);
  const dens = new Float64Array(k);
  const index = new Int32Array(frames.length * c);
  const posterior = new Float64Array(frames.length * c);
  const order = new Int32Array(k);
  frames.forEach((t, i) => {
    componentLogDensities(ubm, consts, features, t * ubm.dim, dens);
    const lse = logSumExp(dens, k);
    for (let j = 0; j < k; j++) order[j] = j;
    // Partial selection of the c best.
    for (let j = 0; j < c; j++) {
      let best = j;
      for (let m = j + 1; m < k; m++) if (dens[order[m]!]! > dens[order[best]!]!) best = m;
      const tmp = order[j]!;
      order[j] = order[best]!;
      order[best] = tmp;
      index[i * c + j] = order[j]!;
      posterior[i * c + j] = Math.exp(dens[order[j]!]! - lse);
    }
  });
  return { top: c, index, posterior };
}

/**
 * Zeroth and first-order statistics of a set of frames (positions `rows` into the frames
 * the posteriors were computed on).
 */
export function sufficientStats(
  ubm: DiagGmm,
  features: Float32Array,
  frames: readonly number[],
  post: FramePosteriors,
  rows: Iterable<number>,
): { n: Float64Array; f: Float64Array } {
  const n = new Float64Array(ubm.components);
  const f = new Float64Array(ubm.components * ubm.dim);
  for (const i of rows) {
    const off = frames[i]! * ubm.dim;
    for (let j = 0; j < post.top; j++) {
      const c = post.index[i * post.top + j]!;
      const g = post.posterior[i * post.top + j]!;
      n[c] = n[c]! + g;
      for (let d = 0; d < ubm.dim; d++) f[c * ubm.dim + d] = f[c * ubm.dim + d]! + g * features[off + d]!;
    }
  }
  return { n, f };
}

/** MAP-adapted means (relevance factor `relevance`, classic value 16) from statistics. */
export function mapAdaptMeans(ubm: DiagGmm, n: Float64Array, f: Float64Array, relevance = 16): Float64Array {
  const out = new Float64Array(ubm.means.length);
  for (let c = 0; c < ubm.components; c++) {
    const a = n[c]! / (n[c]! + relevance);
    for (let d = 0; d < ubm.dim; d++) {
      const i = c * ubm.dim + d;
      const m = n[c]! > 0 ? f[i]! / n[c]! : ubm.means[i]!;
      out[i] = a * m + (1 - a) * ubm.means[i]!;
    }
  }
  return out;
}

/**
 * Supervector of adapted means, scaled so Euclidean distance approximates the KL divergence
 * bound between the adapted models: √w_c (m_c − μ_c) / σ_c.
 */
export function supervector(ubm: DiagGmm, adaptedMeans: Float64Array): Float64Array {
  const out = new Float64Array(adaptedMeans.length);
  for (let c = 0; c < ubm.components; c++) {
    const sw = Math.sqrt(ubm.weights[c]!);
    for (let d = 0; d < ubm.dim; d++) {
      const i = c * ubm.dim + d;
      out[i] = (sw * (adaptedMeans[i]! - ubm.means[i]!)) / Math.sqrt(ubm.variances[i]!);
    }
  }
  return out;
}

/**
 * Log-likelihood of each frame under a model that shares the UBM's weights and variances
 * but has `means`, evaluated on the frame's top UBM components only.
 */
export function frameLogLikelihoods(
  ubm: DiagGmm,
  means: Float64Array,
  features: Float32Array,
  frames: readonly number[],
  post: FramePosteriors,
): Float64Array {
  const consts = logConstants(ubm);
  const out = new Float64Array(frames.length);
  const tmp = new Float64Array(post.top);
  frames.forEach((t, i) => {
    const off = t * ubm.dim;
    for (let j = 0; j < post.top; j++) {
      const c = post.index[i * post.top + j]!;
      let q = 0;
      for (let d = 0; d < ubm.dim; d++) {
        const diff = features[off + d]! - means[c * ubm.dim + d]!;
        q += (diff * diff) / ubm.variances[c * ubm.dim + d]!;
      }
      tmp[j] = consts[c]! - 0.5 * q;
    }
    out[i] = logSumExp(tmp, post.top);
  });
  return out;
}
