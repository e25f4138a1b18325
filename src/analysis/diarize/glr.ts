/**
 * The GLR merge of single-mix diarization (mix.ts): piece clusters are merged while their
 * frames fit one full-covariance Gaussian nearly as well as two (generalised likelihood
 * ratio per frame).
 *
 * @module
 */

/** Count, sum and scatter (full covariance) of one cluster's frames. */
interface GaussStats {
  n: number;
  sum: Float64Array;
  scatter: Float64Array;
}

function clusterGaussians(
  feats: Float32Array,
  dim: number,
  frames: readonly number[],
  labels: Int32Array,
  k: number,
): GaussStats[] {
  const out = Array.from({ length: k }, () => ({
    n: 0,
    sum: new Float64Array(dim),
    scatter: new Float64Array(dim * dim),
  }));
  labels.forEach((l, i) => {
    if (l < 0 || l >= k) return;
    const g = out[l]!;
    const t = frames[i]!;
    g.n++;
    for (let a = 0; a < dim; a++) {
      const x = feats[t * dim + a]!;
      g.sum[a] = g.sum[a]! + x;
      for (let b = 0; b <= a; b++) g.scatter[a * dim + b] = g.scatter[a * dim + b]! + x * feats[t * dim + b]!;
    }
  });
  return out;
}

/** log det of the covariance of stats (Cholesky; the lower triangle of scatter is used). */
function logDetCovariance(n: number, sum: Float64Array, scatter: Float64Array, dim: number): number {
  const c = new Float64Array(dim * dim);
  for (let a = 0; a < dim; a++)
    for (let b = 0; b <= a; b++)
      c[a * dim + b] = scatter[a * dim + b]! / n - (sum[a]! / n) * (sum[b]! / n) + (a === b ? 1e-6 : 0);
  let logDet = 0;
  for (let j = 0; j < dim; j++) {
    let d = c[j * dim + j]!;
    for (let m = 0; m < j; m++) d -= c[j * dim + m]! ** 2;
    if (!(d > 0)) return -Infinity;
    const l = Math.sqrt(d);
    c[j * dim + j] = l;
    logDet += 2 * Math.log(l);
    for (let i = j + 1; i < dim; i++) {
      let v = c[i * dim + j]!;
      for (let m = 0; m < j; m++) v -= c[i * dim + m]! * c[j * dim + m]!;
      c[i * dim + j] = v / l;
    }
  }
  return logDet;
}

/**
 * Generalised likelihood ratio of two clusters under one full-covariance Gaussian against
 * one each, per frame (nats): near 0 for two halves of one voice, larger for two voices.
 */
function divergencePerFrame(x: GaussStats, y: GaussStats, dim: number): number {
  const n = x.n + y.n;
  if (x.n < dim * 2 || y.n < dim * 2) return 0;
  const sum = new Float64Array(dim);
  const scatter = new Float64Array(dim * dim);
  for (let i = 0; i < dim; i++) sum[i] = x.sum[i]! + y.sum[i]!;
  for (let i = 0; i < dim * dim; i++) scatter[i] = x.scatter[i]! + y.scatter[i]!;
  const all = logDetCovariance(n, sum, scatter, dim);
  return (
    0.5 *
    (all -
      (x.n / n) * logDetCovariance(x.n, x.sum, x.scatter, dim) -
      (y.n / n) * logDetCovariance(y.n, y.sum, y.scatter, dim))
  );
}

/**
 * Agglomerates piece clusters: repeatedly merges the pair with the smallest per-frame GLR
 * while it is below `threshold`. Returns piece labels renumbered 0..k−1.
 */
export function mergeByGlr(
  feats: Float32Array,
  dim: number,
  frames: readonly number[],
  pieces: ReadonlyArray<readonly [number, number, number]>,
  pieceLabels: Int32Array,
  k: number,
  threshold: number,
  minCount: number,
): { labels: Int32Array; k: number } {
  const rowLabels = new Int32Array(frames.length).fill(-1);
  pieces.forEach(([a, b], i) => rowLabels.fill(pieceLabels[i]!, a, b));
  const stats: Array<GaussStats | undefined> = clusterGaussians(feats, dim, frames, rowLabels, k);
  const owner = Array.from({ length: k }, (_, i) => i);
  for (let alive = k; alive > minCount; alive--) {
    let best = Infinity;
    let pair: [number, number] | undefined;
    for (let a = 0; a < k; a++) {
      for (let b = a + 1; b < k; b++) {
        const x = stats[a];
        const y = stats[b];
        if (!x || !y) continue;
        const v = divergencePerFrame(x, y, dim);
        if (v < best) {
          best = v;
          pair = [a, b];
        }
      }
    }
    if (!pair || best >= threshold) break;
    const [a, b] = pair;
    const x = stats[a]!;
    const y = stats[b]!;
    for (let i = 0; i < dim; i++) x.sum[i] = x.sum[i]! + y.sum[i]!;
    for (let i = 0; i < dim * dim; i++) x.scatter[i] = x.scatter[i]! + y.scatter[i]!;
    x.n += y.n;
    stats[b] = undefined;
    for (let i = 0; i < k; i++) if (owner[i] === b) owner[i] = a;
  }
  const alive = [...new Set(owner)].sort((p, q) => p - q);
  const renumber = new Map(alive.map((c, i) => [c, i]));
  return { labels: pieceLabels.map((l) => renumber.get(owner[l]!)!), k: alive.length };
}
