/**
 * "About N s left" from the measured rate of the work done, never from elapsed time.
 *
 * The page feeds the running step's fraction (0..1) each time it learns it (every poll, every
 * upload chunk). Only the moments the fraction moves count: the rate is the slope between the
 * newest of those points and an older one at least {@link WINDOW_MS} and {@link MIN_MOVES} moves
 * before it, so a stage that reports in coarse jumps (a stall, then a jump) is measured over its
 * jumps, and the time a stage sits at its first fraction before any work shows (loading a model)
 * is not counted. While the fraction stands still the estimate counts down from the last one;
 * once the stall has outlasted it, the step is "almost done" if no more than one usual move is
 * left, else the page says it is estimating again instead of inventing a number: a stalled
 * fraction never makes the estimate grow with the clock. There is no number until the fraction
 * has moved twice (two points to take a slope from), and never "0 s" while the step still runs.
 *
 * Pure: numbers in, plain data out (the unit tier replays recorded runs through it).
 *
 * @module
 */

/** How far back (ms) the rate looks: the slope is taken over at least this much of the run. */
export const WINDOW_MS = 10_000;

/** The slope is taken over at least this many moves of the fraction (where there are so many). */
export const MIN_MOVES = 3;

/** What the page says about the time left. */
export type Remaining =
  /** No rate yet (fewer than two moves of the fraction), or the fraction has stalled past the estimate. */
  | { kind: 'estimating' }
  /** The countdown is out and at most one usual move is left, or the fraction is at 1 while the step still runs. */
  | { kind: 'almost' }
  /** About `ms` milliseconds left (at least 1 000). */
  | { kind: 'left'; ms: number };

interface Point {
  t: number;
  f: number;
}

/** Follows one step's fraction over time and tells the time left; a new step takes a new one. */
export class RemainingEstimator {
  /** The first sample, then every sample at which the fraction moved up. */
  private readonly moves: Point[] = [];
  /** The latest fraction seen. */
  private fraction = 0;

  /** The step's fraction done (0..1) at time `t` (ms, any clock that only goes forward). */
  sample(t: number, fraction: number): void {
    if (!Number.isFinite(t) || !Number.isFinite(fraction)) return;
    const f = Math.min(1, Math.max(0, fraction));
    const last = this.moves.at(-1);
    if (last !== undefined && t < last.t) return;
    this.fraction = Math.max(this.fraction, f);
    if (last === undefined || f > last.f) this.moves.push({ t, f });
    // Moves older than the slope's reference are never its reference again: drop them (an upload
    // moves at every chunk). moves[0], where the step stood when first seen, stays.
    const reference = this.reference(this.moves.slice(1));
    if (reference > 0) this.moves.splice(1, reference);
  }

  /** The index in `points` of the slope's reference: the newest move at least WINDOW_MS and MIN_MOVES moves before the last, else 0. */
  private reference(points: readonly Point[]): number {
    const last = points.at(-1);
    let ref = 0;
    if (last === undefined) return ref;
    points.forEach((p, i) => {
      if (last.t - p.t >= WINDOW_MS && points.length - 1 - i >= MIN_MOVES) ref = i;
    });
    return ref;
  }

  /** The time left at `now` (ms, the clock of {@link sample}). */
  remaining(now: number): Remaining {
    if (this.fraction >= 1) return { kind: 'almost' };
    // moves[0] is where the step stood when first seen; the slope needs two moves after it.
    const points = this.moves.slice(1);
    const last = points.at(-1);
    if (last === undefined || points.length < 2) return { kind: 'estimating' };
    // Coarse jumps are measured over a few of them, so one late poll counts less.
    const ref = points[this.reference(points)]!;
    const span = last.t - ref.t;
    if (span <= 0) return { kind: 'estimating' };
    const rate = (last.f - ref.f) / span; // fraction per ms
    const atLast = (1 - last.f) / rate;
    const ms = atLast - Math.max(0, now - last.t);
    if (ms >= 1000) return { kind: 'left', ms };
    // The countdown has run out with the fraction standing still: if what is left is no more than
    // one usual move, the step is almost done; otherwise the rate no longer holds and it is a guess.
    const moves = points.filter((p) => p.t >= ref.t).length - 1;
    return 1 - last.f <= (last.f - ref.f) / moves ? { kind: 'almost' } : { kind: 'estimating' };
  }
}

const seconds = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
};

/** The words for a {@link Remaining}: "about 40 s left", "estimating…", "almost done". */
export function remainingText(remaining: Remaining): string {
  switch (remaining.kind) {
    case 'estimating':
      return 'estimating…';
    case 'almost':
      return 'almost done';
    case 'left':
      return `about ${seconds(remaining.ms)} left`;
  }
}
