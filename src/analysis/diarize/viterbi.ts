/**
 * Viterbi resegmentation: an HMM with one state chain per speaker whose first
 * `minDurationFrames` states must be passed in order, so every speaker turn lasts at least
 * that long, plus a log-penalty on each change of speaker.
 *
 * @module
 */

/**
 * Best speaker per frame given `scores[k][t]` (log-likelihood of frame t under speaker k).
 * Frames form one sequence: callers pass only speech frames.
 *
 * @param switchPenalty cost of a change of speaker: one number, or per frame (`[t]` is the
 *   cost of a turn starting at frame t), e.g. cheaper where a pause was cut out
 *
 * @example
 * const path = viterbiSegment([llA, llB], 25, 10); // path[t] is 0 or 1, runs ≥ 25 frames
 */
export function viterbiSegment(
  scores: readonly Float64Array[],
  minDurationFrames: number,
  switchPenalty: number | ArrayLike<number>,
): Int32Array {
  const k = scores.length;
  const T = k === 0 ? 0 : scores[0]!.length;
  const out = new Int32Array(T);
  if (T === 0 || k <= 1) return out;
  const D = Math.max(1, minDurationFrames);
  const penaltyAt =
    typeof switchPenalty === 'number' ? (): number => switchPenalty : (t: number): number => switchPenalty[t]!;
  const S = k * D; // state sp·D + d: speaker sp, d frames into the turn (D−1 loops)
  // Only two decisions are not implied by the chain: where a turn came from, and whether the
  // last chain state looped. Storing just those keeps memory at T·k·5 bytes.
  const enteredFrom = new Int32Array(T * k);
  const looped = new Uint8Array(T * k);
  let prev = new Float64Array(S).fill(-Infinity);
  let cur = new Float64Array(S);
  for (let sp = 0; sp < k; sp++) prev[sp * D] = scores[sp]![0]!;
  for (let t = 1; t < T; t++) {
    for (let sp = 0; sp < k; sp++) {
      const x = scores[sp]![t]!;
      let b = -Infinity;
      let bs = 0;
      for (let o = 0; o < k; o++) {
        if (o === sp) continue;
        const v = prev[o * D + D - 1]!;
        if (v > b) {
          b = v;
          bs = o;
        }
      }
      enteredFrom[t * k + sp] = bs;
      const entry = b - penaltyAt(t) + x;
      if (D === 1) {
        const loop = prev[sp]! + x;
        looped[t * k + sp] = loop >= entry ? 1 : 0;
        cur[sp] = Math.max(loop, entry);
        continue;
      }
      cur[sp * D] = entry;
      for (let d = 1; d < D - 1; d++) cur[sp * D + d] = prev[sp * D + d - 1]! + x;
      const advance = prev[sp * D + D - 2]! + x;
      const loop = prev[sp * D + D - 1]! + x;
      looped[t * k + sp] = loop >= advance ? 1 : 0;
      cur[sp * D + D - 1] = Math.max(loop, advance);
    }
    const tmp = prev;
    prev = cur;
    cur = tmp;
  }
  // The last turn may be cut short by the end of the sequence: any chain position can end it.
  let sp = 0;
  let d = 0;
  let best = -Infinity;
  for (let s = 0; s < S; s++) {
    if (prev[s]! > best) {
      best = prev[s]!;
      sp = Math.floor(s / D);
      d = s % D;
    }
  }
  for (let t = T - 1; t >= 0; t--) {
    out[t] = sp;
    if (t === 0) break;
    if (D === 1) {
      if (!looped[t * k + sp]) sp = enteredFrom[t * k + sp]!;
    } else if (d === D - 1) {
      if (!looped[t * k + sp]) d = D - 2;
    } else if (d > 0) d--;
    else {
      sp = enteredFrom[t * k + sp]!;
      d = D - 1;
    }
  }
  return out;
}
