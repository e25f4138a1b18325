/**
 * Does a face speak in a speaker's turns? Welch's t of its mouth activity over whole stretches
 * of the conversation (turns and pauses), the statistic the camera map and the single-mix face
 * evidence share.
 *
 * @module
 */
import type { Turn } from '../../contract/types.ts';
import type { FaceTrack } from './face-tracks.ts';

/** A stretch of the conversation: someone's turn, or a pause of a second or more (speaker ''). */
export interface TurnUnit {
  speaker: string;
  startMs: number;
  endMs: number;
}

/** The turns, and the pauses of at least 1 s between them (where nobody speaks). */
export function turnUnits(turns: readonly Turn[]): TurnUnit[] {
  const sorted = [...turns].filter((t) => t.endMs > t.startMs).sort((a, b) => a.startMs - b.startMs);
  const units: TurnUnit[] = [];
  let end = -Infinity;
  for (const t of sorted) {
    if (t.startMs - end >= 1000) units.push({ speaker: '', startMs: end, endMs: t.startMs });
    units.push({ speaker: t.speaker, startMs: t.startMs, endMs: t.endMs });
    end = Math.max(end, t.endMs);
  }
  return units;
}

/**
 * How much more a face's mouth moves in `speaker`'s turns than in everyone else's turns and in
 * pauses, as Welch's t over stretches: each turn or pause with samples is one value (`means`,
 * the face's {@link unitMeans} over `units`: computed once per face, used for every speaker). Stretches are close to
 * independent where samples of one run are not, so this needs no null from circular shifts,
 * which turn-taking between two people makes weak on a few minutes. Unrelated mouths give t
 * near 0 (|t| > 5 about one time in ten thousand at ten stretches a side).
 */
export function turnContrast(means: ReadonlyArray<number | null>, units: readonly TurnUnit[], speaker: string): number {
  const own: number[] = [];
  const rest: number[] = [];
  units.forEach((u, k) => {
    const m = means[k];
    if (m !== null && m !== undefined) (u.speaker === speaker ? own : rest).push(m);
  });
  if (own.length < 2 || rest.length < 2) return 0;
  const stats = (x: number[]): [number, number] => {
    const m = x.reduce((a, b) => a + b, 0) / x.length;
    return [m, x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1)];
  };
  const [mOwn, vOwn] = stats(own);
  const [mRest, vRest] = stats(rest);
  // A floor on the spread: a still face in every other stretch must not make t infinite.
  const floor = 1e-4 * (Math.abs(mOwn) + Math.abs(mRest) + 1e-3) ** 2;
  return (mOwn - mRest) / Math.sqrt(Math.max(vOwn, floor) / own.length + Math.max(vRest, floor) / rest.length);
}

/**
 * The mean activity of a face in each stretch (samples from 150 ms after its start to 150 ms
 * before its end), or null where the sampled runs missed it.
 */
export function unitMeans(track: Pick<FaceTrack, 't' | 'activity'>, units: readonly TurnUnit[]): Array<number | null> {
  const out: Array<number | null> = [];
  for (const u of units) {
    const from = u.startMs + 150;
    const to = u.endMs - 150;
    // Binary search for the first sample at or after `from` (units overlap when turns do).
    let lo = 0;
    let hi = track.t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (track.t[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    let sum = 0;
    let n = 0;
    for (let j = lo; j < track.t.length && track.t[j]! < to; j++) {
      sum += track.activity[j]!;
      n++;
    }
    out.push(n > 0 ? sum / n : null);
  }
  return out;
}
