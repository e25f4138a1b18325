/**
 * Optimal assignment (Hungarian / Kuhn–Munkres, O(n³)) on a rectangular cost matrix.
 *
 * @module
 */

/**
 * Minimum-cost assignment of rows to columns. Returns, for each row, the column it gets, or
 * -1 when there are more rows than columns and the row is left out.
 *
 * @example
 * assignMinCost([[4, 1], [2, 3]]); // [1, 0]
 */
export function assignMinCost(cost: readonly (readonly number[])[]): number[] {
  const rows = cost.length;
  const cols = rows === 0 ? 0 : Math.max(...cost.map((r) => r.length));
  const n = Math.max(rows, cols);
  if (n === 0) return [];
  // Square it with zero-cost dummies; the classic potentials formulation (1-based).
  const a = (i: number, j: number): number => (i < rows && j < cols ? (cost[i]![j] ?? 0) : 0);
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const p = new Int32Array(n + 1);
  const way = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(n + 1).fill(Infinity);
    const used = new Uint8Array(n + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = a(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[p[j]!] = u[p[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else {
          minv[j] = minv[j]! - delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const result = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= n; j++) {
    const i = p[j]! - 1;
    if (i < rows && j - 1 < cols) result[i] = j - 1;
  }
  return result;
}
