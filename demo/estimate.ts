/**
 * "About N s left" from the measured rate of the work done, never from elapsed time.
 *
 * The page feeds the running step's fraction (0..1) each time it learns it (every poll, every
 * upload chunk). Only the moments the fraction moves count. The rate is the slope over the newest
 * run of moves that went at one pace: walking back from the newest, each older stretch between
 * two moves joins while its rate stays within {@link SAME_PACE}× of the rate of the newer ones.
 * So a stage that reports in coarse jumps (a stall, then a jump) is measured over its jumps, a
 * stage whose pace changes (a render's audio, then its much faster video) is measured on its new
 * pace from the first move that shows it, and the time a stage sits at its first fraction before
 * any work shows (loading a model) is not counted.
 *
 * While the fraction stands still the estimate counts down from the last one; once the stall has
 * outlasted it, the step is "almost done" if no more than one usual move is left, else the page
 * says it is estimating again instead of inventing a number. When a move says the step will end
 * later than the previous move said (the pace dropped, or a stall was longer than the count-down),
 * the page says it is estimating until the next move confirms a rate: a number never grows from
 * one poll to the next. There is no number until the fraction has moved twice (two points to take
 * a slope from), and never "0 s" while the step still runs.
 *
 * Pure: numbers in, plain data out (the unit tier replays recorded runs through it:
 * test/node/demo/estimate-recorded.test.ts).
 *
 * @module
 */

/** Two stretches between moves belong to one pace when their rates differ by at most this factor. */
export const SAME_PACE = 2.5;

/** How many moves are kept (an upload moves at every chunk); the pace is measured over at most these. */
export const MAX_MOVES = 60;

/** A move may say the step ends this much later than the previous move said (ms, plus half the time that was left) before it counts as a slower pace. */
export const LATER_SLACK_MS = 2000;

/** What the page says about the time left. */
export type Remaining =
  /** No rate yet (fewer than two moves of the fraction), the pace just changed, or the fraction has stalled past the estimate. */
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
  /** When the step ends by the rate measured at the newest move (null: no rate yet). */
  private end: number | null = null;
  /** The newest move said the step ends later than the one before it: no number until the next. */
  private slower = false;
  /** The fraction one usual move covers at the current pace. */
  private usualMove = 0;

  /** The step's fraction done (0..1) at time `t` (ms, any clock that only goes forward). */
  sample(t: number, fraction: number): void {
    if (!Number.isFinite(t) || !Number.isFinite(fraction)) return;
    const f = Math.min(1, Math.max(0, fraction));
    const last = this.moves.at(-1);
    if (last !== undefined && t < last.t) return;
    this.fraction = Math.max(this.fraction, f);
    if (last !== undefined && f <= last.f) return;
    this.moves.push({ t, f });
    // moves[0], where the step stood when first seen, stays: a stage's first moves are not
    // measured from the time it sat there (loading a model) but from its own first move.
    if (this.moves.length > MAX_MOVES + 1) this.moves.splice(1, 1);
    this.measure(t);
  }

  /** The pace at the newest move: the slope over the newest moves that went at one pace. */
  private measure(now: number): void {
    const points = this.moves.slice(1);
    const last = points.at(-1)!;
    if (points.length < 2) return;
    let from = points.length - 2;
    const rate = (a: Point, b: Point): number => (b.f - a.f) / Math.max(1, b.t - a.t);
    while (from > 0) {
      const pace = rate(points[from]!, last);
      const older = rate(points[from - 1]!, points[from]!);
      if (older > pace * SAME_PACE || older * SAME_PACE < pace) break;
      from--;
    }
    const ref = points[from]!;
    const end = last.t + (1 - last.f) / rate(ref, last);
    const before = this.end;
    // Later than the previous move said (beyond its slack): the pace dropped; measure it again.
    this.slower = before !== null && end > before + LATER_SLACK_MS + Math.max(0, before - now) / 2;
    this.end = end;
    this.usualMove = (last.f - ref.f) / (points.length - 1 - from);
  }

  /** The time left at `now` (ms, the clock of {@link sample}). */
  remaining(now: number): Remaining {
    if (this.fraction >= 1) return { kind: 'almost' };
    if (this.end === null || this.slower) return { kind: 'estimating' };
    const ms = this.end - now;
    if (ms >= 1000) return { kind: 'left', ms };
    // The countdown has run out with the fraction standing still: if what is left is no more than
    // one usual move, the step is almost done; otherwise the rate no longer holds and it is a guess.
    return 1 - this.fraction <= this.usualMove + 1e-9 ? { kind: 'almost' } : { kind: 'estimating' };
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
