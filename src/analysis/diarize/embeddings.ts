/**
 * Speaker similarity from a host-supplied speaker-embedding model (WeSpeaker / 3D-Speaker
 * style, run by src/models/embedding.ts): the model gives one vector per sliding window of the
 * mix; here each clustered piece of speech gets the mean of its windows' vectors, and pieces
 * are compared by cosine similarity. Used by single-mix diarization in place of the GMM
 * supervector similarity when the host app supplies such a model.
 *
 * @module
 */

/**
 * Embeddings on a regular grid: window `i` covers `[i·hopMs, i·hopMs + windowMs)` of the
 * signal (ms), so its centre is at `i·hopMs + windowMs / 2`.
 */
export interface EmbeddingGrid {
  windowMs: number;
  hopMs: number;
  /** One vector per window, all of the same length. */
  vectors: Float32Array[];
}

/** Centre of window `i` of `grid`, ms. */
function windowCentreMs(grid: EmbeddingGrid, i: number): number {
  return i * grid.hopMs + grid.windowMs / 2;
}

/** Indices of the windows whose centre falls in `[startMs, endMs)`, else the one nearest to the piece's middle. */
function windowsOfPiece(grid: EmbeddingGrid, startMs: number, endMs: number): number[] {
  const n = grid.vectors.length;
  // Centre c_i = i·hop + window/2 ∈ [start, end)  ⇔  i ∈ [(start − window/2)/hop, (end − window/2)/hop).
  const first = Math.max(0, Math.ceil((startMs - grid.windowMs / 2) / grid.hopMs));
  const out: number[] = [];
  for (let i = first; i < n && windowCentreMs(grid, i) < endMs; i++) out.push(i);
  if (out.length > 0) return out;
  const nearest = Math.round(((startMs + endMs) / 2 - grid.windowMs / 2) / grid.hopMs);
  return [Math.min(n - 1, Math.max(0, nearest))];
}

/**
 * Cosine similarity between the speech pieces `piecesMs` (`[startMs, endMs)` each), from the
 * mean embedding of each piece: the windows whose centre falls inside the piece, or the
 * nearest window when none does (pieces shorter than the hop). The vectors are first centred
 * on the mean of the windows the pieces use (the speech of the file, not its silences), so the
 * similarity measures what tells the voices apart rather than what every window shares (the
 * room, the mic, the model's bias).
 *
 * @returns row-major `n × n` similarities in [-1, 1], 1 on the diagonal. A piece whose
 *   centred mean is the zero vector (it is the average of all) gets 0 against the others, and
 *   1 against another such piece (they are the same).
 * @throws RangeError when the grid is empty or malformed while there are pieces to compare.
 * @example
 * const grid = await embedding.embedWindows(mix16k);
 * const sim = pieceSimilarity(grid, [[0, 1500], [1500, 3000]]);
 * const sameSpeaker = sim[0 * 2 + 1]! > 0.5;
 */
export function pieceSimilarity(grid: EmbeddingGrid, piecesMs: ReadonlyArray<readonly [number, number]>): Float64Array {
  const n = piecesMs.length;
  const sim = new Float64Array(n * n);
  if (n === 0) return sim;
  if (grid.vectors.length === 0)
    throw new RangeError('pieceSimilarity: the embedding grid has no windows (signal shorter than one window?)');
  if (!(grid.hopMs > 0) || !(grid.windowMs > 0))
    throw new RangeError(`pieceSimilarity: windowMs and hopMs must be > 0, got ${grid.windowMs} and ${grid.hopMs}`);
  const dim = grid.vectors[0]!.length;
  if (dim === 0 || grid.vectors.some((v) => v.length !== dim))
    throw new RangeError(`pieceSimilarity: every embedding must have the same non-zero length (the first has ${dim})`);

  const members = piecesMs.map(([start, end]) => windowsOfPiece(grid, start, end));
  const used = new Set<number>();
  for (const m of members) for (const i of m) used.add(i);
  const centre = new Float64Array(dim);
  for (const i of used) {
    const v = grid.vectors[i]!;
    for (let d = 0; d < dim; d++) centre[d] = centre[d]! + v[d]!;
  }
  for (let d = 0; d < dim; d++) centre[d] = centre[d]! / used.size;

  // Unit-length centred piece means (zero when there is nothing left after centring).
  const zero = new Uint8Array(n);
  const means = members.map((m, p) => {
    const mean = new Float64Array(dim);
    for (const i of m) {
      const v = grid.vectors[i]!;
      for (let d = 0; d < dim; d++) mean[d] = mean[d]! + v[d]! - centre[d]!;
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += mean[d]! * mean[d]!;
    norm = Math.sqrt(norm);
    if (norm > 1e-12) for (let d = 0; d < dim; d++) mean[d] = mean[d]! / norm;
    else {
      mean.fill(0);
      zero[p] = 1;
    }
    return mean;
  });
  for (let a = 0; a < n; a++) {
    sim[a * n + a] = 1;
    const ma = means[a]!;
    for (let b = a + 1; b < n; b++) {
      const mb = means[b]!;
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += ma[d]! * mb[d]!;
      const s = zero[a] && zero[b] ? 1 : Math.max(-1, Math.min(1, dot));
      sim[a * n + b] = s;
      sim[b * n + a] = s;
    }
  }
  return sim;
}
