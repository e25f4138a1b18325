/**
 * Local speakers from a host-supplied segmentation model (pyannote segmentation-3.0, run by
 * src/models/segmentation.ts): on each window of the mix the model tells apart up to three
 * speakers, with frame-accurate changes and overlaps, but its "speaker 1" in one window need
 * not be "speaker 1" in the next. Single-mix diarization ties them to its global speakers:
 *
 * - **count floor**: a window in which two local speakers each talk for a while holds at least
 *   two people, whatever the clustering of the whole file says;
 * - **votes**: every local speaker of a window goes to the global speaker whose model scores
 *   its frames best (two local speakers of one window never go to the same global speaker);
 *   the share of windows voting for a speaker on a frame joins the resegmentation's scores,
 *   which moves short turns the speaker models alone get wrong;
 * - **one voice split in two**: global speakers never heard as two local speakers of one
 *   window are one;
 * - **overlap**: where the windows hear two local speakers, the second goes to the most voted
 *   other global speaker.
 *
 * On real conversation (pyannote's sample) the local speakers are 91 % pure; on the
 * LibriSpeech conversations assembled from read speech only 75–89 %, which is why the votes
 * add to the models' evidence rather than replace it.
 *
 * @module
 */

/** Local speaker activity on sliding windows of one signal. */
export interface LocalSpeakerWindows {
  /** ms per model frame. */
  frameMs: number;
  /** Local speakers per window (3 for segmentation-3.0). */
  speakers: number;
  /**
   * One entry per window, in order: its start (ms into the signal) and the probability that
   * each local speaker talks, `frames × speakers` values, frame-major.
   */
  windows: Array<{ startMs: number; activity: Float32Array }>;
}

/** A local speaker counts as talking on a frame above this probability. */
const ACTIVE = 0.5;
/** Two local speakers of a window count as two people when each talks this long. */
const TOGETHER_MS = 1000;

/** One window's local speakers on the speech rows, from {@link localRows}. */
export interface LocalRows {
  /** The speech rows inside the window, [from, to). */
  from: number;
  to: number;
  /** Per local speaker: indices into the speech rows. */
  rows: number[][];
}

/**
 * Maps every local speaker of every window onto the speech rows (10 ms frames listed in
 * `frames`) where it talks. Computed once per file; the floor and every vote pass read it.
 *
 * @param frames signal frame index of each speech row (the VAD's speech), ascending
 * @param frameMs ms per signal frame
 */
export function localRows(local: LocalSpeakerWindows, frames: readonly number[], frameMs: number): LocalRows[] {
  const out: LocalRows[] = [];
  let first = 0;
  for (const w of local.windows) {
    const framesInWindow = w.activity.length / local.speakers;
    const endMs = w.startMs + framesInWindow * local.frameMs;
    while (first < frames.length && (frames[first]! + 0.5) * frameMs < w.startMs) first++;
    const rows: number[][] = Array.from({ length: local.speakers }, () => []);
    let r = first;
    for (; r < frames.length; r++) {
      const ms = (frames[r]! + 0.5) * frameMs;
      if (ms >= endMs) break;
      const f = Math.min(framesInWindow - 1, Math.floor((ms - w.startMs) / local.frameMs));
      for (let s = 0; s < local.speakers; s++) if (w.activity[f * local.speakers + s]! > ACTIVE) rows[s]!.push(r);
    }
    out.push({ from: first, to: r, rows });
  }
  return out;
}

/**
 * The most local speakers that talk for at least `minMs` each (on speech rows) within one
 * window: a floor for the number of speakers of the file.
 */
export function localSpeakerFloor(windows: readonly LocalRows[], frameMs: number, minMs = 2000): number {
  let best = 0;
  for (const w of windows) {
    const talking = w.rows.filter((r) => r.length * frameMs >= minMs).length;
    best = Math.max(best, talking);
  }
  return best;
}

/** What the windows say about each speech row, from {@link localVotes}. */
export interface LocalVotes {
  /** Per global speaker: the share of the windows covering the row that say it talks there. */
  share: Float32Array[];
  /** Mean number of local speakers talking on the row (0 where no window covers it). */
  talking: Float32Array;
  /** k × k: windows in which two global speakers were two different local speakers (≥ 1 s each). */
  together: Uint16Array;
}

/**
 * Ties each window's local speakers (with at least `minMs` of talk) to distinct global
 * speakers, maximising the summed log-likelihood ratio of their rows, and counts per row how
 * many windows say each global speaker talks there.
 *
 * @param scores per global speaker, the log-likelihood of every speech row
 */
export function localVotes(
  windows: readonly LocalRows[],
  frameMs: number,
  scores: readonly Float64Array[],
  minMs = 200,
): LocalVotes {
  const k = scores.length;
  const rowsN = scores[0]?.length ?? 0;
  const votes = scores.map(() => new Uint16Array(rowsN));
  const covered = new Uint16Array(rowsN);
  const talkingSum = new Uint16Array(rowsN);
  const together = new Uint16Array(k * k);
  for (const w of windows) {
    for (let r = w.from; r < w.to; r++) covered[r] = covered[r]! + 1;
    for (const rows of w.rows) for (const r of rows) talkingSum[r] = talkingSum[r]! + 1;
    const speakers = w.rows.filter((rows) => rows.length * frameMs >= minMs);
    if (speakers.length === 0) continue;
    // gain[i][g]: how much better global speaker g explains local speaker i's rows than the
    // average global speaker does (summed log-likelihood ratio).
    const gain = speakers.map((rows) => {
      const sums = scores.map((sc) => {
        let acc = 0;
        for (const r of rows) acc += sc[r]!;
        return acc;
      });
      const mean = sums.reduce((a, b) => a + b, 0) / k;
      return sums.map((v) => v - mean);
    });
    const assignment = bestDistinctAssignment(gain, k);
    speakers.forEach((rows, i) => {
      const g = assignment[i]!;
      if (g < 0) return;
      for (const r of rows) votes[g]![r] = votes[g]![r]! + 1;
      speakers.forEach((other, j) => {
        const h = assignment[j]!;
        if (j !== i && h >= 0 && rows.length * frameMs >= TOGETHER_MS && other.length * frameMs >= TOGETHER_MS)
          together[g * k + h] = together[g * k + h]! + 1;
      });
    });
  }
  const share = votes.map((v) => Float32Array.from(v, (x, r) => (covered[r]! > 0 ? x / covered[r]! : 0)));
  const talking = Float32Array.from(talkingSum, (x, r) => (covered[r]! > 0 ? x / covered[r]! : 0));
  return { share, talking, together };
}

/**
 * Who talks on each speech row: `path`'s speaker, and where the windows say two or more local
 * speakers talk (their mean count, rounded), as many more of the global speakers they voted
 * for, most voted first.
 */
export function speakersWithOverlap(votes: LocalVotes, path: Int32Array): Uint8Array[] {
  const k = votes.share.length;
  const active = votes.share.map(() => new Uint8Array(path.length));
  const order = Array.from({ length: k }, (_, g) => g);
  for (let r = 0; r < path.length; r++) {
    const p = path[r]!;
    if (p < 0) continue;
    active[p]![r] = 1;
    let extra = Math.min(k, Math.round(votes.talking[r]!)) - 1;
    if (extra <= 0) continue;
    order.sort((a, b) => votes.share[b]![r]! - votes.share[a]![r]!);
    for (const g of order) {
      if (extra > 0 && g !== p && votes.share[g]![r]! > 0) {
        active[g]![r] = 1;
        extra--;
      }
    }
  }
  return active;
}

/**
 * Assigns rows of `gain` (local speakers) to distinct columns (global speakers) maximising the
 * total; with more local than global speakers the weakest go unassigned (−1). Exhaustive:
 * at most three local speakers.
 */
function bestDistinctAssignment(gain: readonly number[][], k: number): number[] {
  const n = gain.length;
  let bestTotal = -Infinity;
  let bestAssigned = -1;
  let bestPick: number[] = new Array<number>(n).fill(-1);
  const pick: number[] = new Array<number>(n).fill(-1);
  const used = new Uint8Array(k);
  const walk = (i: number, total: number, assigned: number): void => {
    if (i === n) {
      // As many local speakers assigned as there are global ones first, then the best total.
      if (assigned > bestAssigned || (assigned === bestAssigned && total > bestTotal)) {
        bestAssigned = assigned;
        bestTotal = total;
        bestPick = [...pick];
      }
      return;
    }
    for (let g = 0; g < k; g++) {
      if (used[g]) continue;
      used[g] = 1;
      pick[i] = g;
      walk(i + 1, total + gain[i]![g]!, assigned + 1);
      used[g] = 0;
    }
    pick[i] = -1;
    walk(i + 1, total, assigned);
  };
  walk(0, 0, 0);
  return bestPick;
}
