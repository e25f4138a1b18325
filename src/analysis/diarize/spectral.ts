/**
 * Spectral clustering that finds the number of clusters itself: the affinity is pruned to
 * each row's strongest neighbours (the p of NME-SC, Park et al. 2019, chosen per file by
 * the normalised maximum eigengap), the count is the largest eigengap of the Laplacian
 * within sanity bounds, and k-means runs on the spectral embedding.
 *
 * @module
 */
import { symmetricEigen } from './eigen.ts';
import { seededRandom } from '../signal/random.ts';

/** Options of {@link spectralCluster}. */
export interface SpectralOptions {
  /** Default 1. */
  minClusters?: number;
  /** Default 8. */
  maxClusters?: number;
  /** Fixes the count (skips the eigengap). */
  numClusters?: number;
  /**
   * Clusters into at least this many, whatever the count (over-clustering for a merge that
   * follows); the count is still reported. Default 0.
   */
  clusterAtLeast?: number;
  seed?: number;
}

/** Result of {@link spectralCluster}. */
export interface SpectralResult {
  labels: Int32Array;
  /** Clusters in `labels`: the count, or `clusterAtLeast` when that is more. */
  k: number;
  /** The count: the eigengap's, or `numClusters`. */
  count: number;
  /** Laplacian eigenvalues (ascending) for the chosen pruning, for diagnostics. */
  eigenvalues: number[];
  /** Neighbours kept per row. */
  p: number;
}

function prunedLaplacian(sim: Float64Array, n: number, p: number): Float64Array {
  const a = new Float64Array(n * n);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < n; i++) {
    const row = idx.filter((j) => j !== i).sort((x, y) => sim[i * n + y]! - sim[i * n + x]!);
    for (let r = 0; r < Math.min(p, row.length); r++) a[i * n + row[r]!] = 1;
  }
  const lap = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    let deg = 0;
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const w = 0.5 * (a[i * n + j]! + a[j * n + i]!);
      lap[i * n + j] = -w;
      deg += w;
    }
    lap[i * n + i] = deg;
  }
  return lap;
}

/** Plain k-means with farthest-point seeding plus seeded restarts; returns the best labels. */
export function kMeans(points: Float64Array, n: number, dim: number, k: number, seed = 1, restarts = 5): Int32Array {
  const rand = seededRandom(seed);
  let best = new Int32Array(n);
  let bestCost = Infinity;
  const d2 = (i: number, c: Float64Array, j: number): number => {
    let s = 0;
    for (let d = 0; d < dim; d++) {
      const v = points[i * dim + d]! - c[j * dim + d]!;
      s += v * v;
    }
    return s;
  };
  for (let r = 0; r < restarts; r++) {
    const centers = new Float64Array(k * dim);
    const first = r === 0 ? 0 : Math.floor(rand() * n);
    for (let d = 0; d < dim; d++) centers[d] = points[first * dim + d]!;
    const minD = new Float64Array(n).fill(Infinity);
    for (let c = 1; c < k; c++) {
      let far = 0;
      for (let i = 0; i < n; i++) {
        minD[i] = Math.min(minD[i]!, d2(i, centers, c - 1));
        if (minD[i]! > minD[far]!) far = i;
      }
      for (let d = 0; d < dim; d++) centers[c * dim + d] = points[far * dim + d]!;
    }
    const labels = new Int32Array(n);
    let cost = Infinity;
    for (let it = 0; it < 100; it++) {
      let changed = false;
      cost = 0;
      for (let i = 0; i < n; i++) {
        let bj = 0;
        let bd = Infinity;
        for (let j = 0; j < k; j++) {
          const dd = d2(i, centers, j);
          if (dd < bd) {
            bd = dd;
            bj = j;
          }
        }
        if (labels[i] !== bj || it === 0) changed = changed || labels[i] !== bj;
        labels[i] = bj;
        cost += bd;
      }
      centers.fill(0);
      const counts = new Float64Array(k);
      for (let i = 0; i < n; i++) {
        counts[labels[i]!] = counts[labels[i]!]! + 1;
        for (let d = 0; d < dim; d++)
          centers[labels[i]! * dim + d] = centers[labels[i]! * dim + d]! + points[i * dim + d]!;
      }
      for (let j = 0; j < k; j++)
        for (let d = 0; d < dim; d++) centers[j * dim + d] = centers[j * dim + d]! / Math.max(1, counts[j]!);
      if (!changed && it > 0) break;
    }
    if (cost < bestCost) {
      bestCost = cost;
      best = labels;
    }
  }
  return best;
}

/**
 * Clusters items given their pairwise similarity (`n`×`n`, row-major, symmetric; cosine
 * similarity of supervectors, say).
 */
export function spectralCluster(similarity: Float64Array, n: number, options: SpectralOptions = {}): SpectralResult {
  const minK = Math.max(1, options.minClusters ?? 1);
  const maxK = Math.max(minK, Math.min(options.maxClusters ?? 8, n - 1));
  if (n <= 2) return { labels: new Int32Array(n), k: 1, count: 1, eigenvalues: [], p: 0 };
  // NME: choose the pruning p whose Laplacian shows the clearest eigengap relative to p.
  const candidates = new Set<number>();
  for (const ratio of [0.05, 0.1, 0.15, 0.2, 0.3]) candidates.add(Math.max(2, Math.round(ratio * n)));
  let best:
    { score: number; p: number; values: Float64Array; vectors: Float64Array; k: number; gap: number } | undefined;
  // The pruning is chosen on the gaps for 2+ clusters, as NME-SC does: counting the k = 1
  // gap (the Fiedler value) favours dense graphs, where every file looks like one speaker.
  const fromK = Math.max(2, minK);
  for (const p of [...candidates].filter((p) => p < n)) {
    const eig = symmetricEigen(prunedLaplacian(similarity, n, p), n);
    const lmax = eig.values[n - 1]! || 1;
    let gap = -Infinity;
    let k = fromK;
    for (let j = fromK; j <= maxK; j++) {
      const g = eig.values[j]! - eig.values[j - 1]!;
      if (g > gap) {
        gap = g;
        k = j;
      }
    }
    const score = p / Math.max(1e-9, gap / lmax);
    if (!best || score < best.score) best = { score, p, values: eig.values, vectors: eig.vectors, k, gap };
  }
  const chosen = best!;
  // One cluster when the chosen graph's Fiedler value beats its best multi-cluster gap.
  let found = chosen.k;
  if (minK <= 1 && (maxK < 2 || chosen.values[1]! - chosen.values[0]! >= chosen.gap)) found = 1;
  const count = options.numClusters ?? found;
  const k = Math.max(count, options.clusterAtLeast ?? 0);
  if (k <= 1)
    return { labels: new Int32Array(n), k: 1, count, eigenvalues: [...chosen.values.slice(0, maxK + 1)], p: chosen.p };
  const emb = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let j = 0; j < k; j++) {
      const v = chosen.vectors[i * n + j]!;
      emb[i * k + j] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm) || 1;
    for (let j = 0; j < k; j++) emb[i * k + j] = emb[i * k + j]! / norm;
  }
  const labels = kMeans(emb, n, k, k, options.seed ?? 1);
  return { labels, k, count, eigenvalues: [...chosen.values.slice(0, maxK + 1)], p: chosen.p };
}
