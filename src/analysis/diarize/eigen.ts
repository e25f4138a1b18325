/**
 * Eigen-decomposition of a real symmetric matrix by cyclic Jacobi rotations: simple, exact
 * to rounding, and fast enough for the few hundred segments spectral clustering sees.
 *
 * @module
 */

/** Eigenvalues ascending, eigenvectors as columns: vector k, entry i at `vectors[i * n + k]`. */
export interface SymmetricEigen {
  n: number;
  values: Float64Array;
  vectors: Float64Array;
}

/** Decomposes the symmetric `n`×`n` row-major `matrix` (not modified). */
export function symmetricEigen(matrix: Float64Array, n: number, maxSweeps = 60): SymmetricEigen {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let off = 0;
    let diag = 0;
    for (let i = 0; i < n; i++) {
      diag += a[i * n + i]! * a[i * n + i]!;
      for (let j = i + 1; j < n; j++) off += a[i * n + j]! * a[i * n + j]!;
    }
    if (off <= 1e-22 * (diag + 1e-300)) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const app = a[p * n + p]!;
        const aqq = a[q * n + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[x * n + x]! - a[y * n + y]!);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, k) => {
    values[k] = a[src * n + src]!;
    for (let i = 0; i < n; i++) vectors[i * n + k] = v[i * n + src]!;
  });
  return { n, values, vectors };
}
