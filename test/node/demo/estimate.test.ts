/**
 * The demo's "about N s left" (demo/estimate.ts) replayed over runs shaped like the ones a person
 * saw (issue 49): a steady stage, a render that reports in coarse jumps (a stall, then a jump),
 * a stage that sits at 0 while it loads before its fraction moves, a stage whose fraction stalls
 * for minutes, and one at 1 while its work goes on. Each run is the page's samples: one poll a
 * second (with jitter) of the fraction the stage reported, and the time the stage really ended.
 */
import { describe, expect, test } from 'vitest';
import { RemainingEstimator, remainingText, type Remaining } from '../../../demo/estimate.ts';
import { createRng } from '../../../tools/fixtures/prng.ts';

interface Sample {
  /** ms since the step began. */
  t: number;
  f: number;
}
interface Run {
  samples: Sample[];
  /** When the step really ended (ms). */
  end: number;
}

/**
 * The page's polls of a stage whose reported fraction at time t (ms) is `reported(t)`, from 0 to
 * `end`: one a second, each 0 to 300 ms late (the poll's own work).
 */
function poll(reported: (t: number) => number, end: number, seed: string): Run {
  const rng = createRng(seed);
  const samples: Sample[] = [];
  for (let tick = 0; tick < end; tick += 1000) {
    const t = Math.min(end - 1, tick + rng.uniform(0, 300));
    samples.push({ t, f: reported(t) });
  }
  return { samples, end };
}

/** Replays a run: every sample fed, then the estimate at that moment. */
function replay(run: Run): Array<Sample & { r: Remaining; truth: number }> {
  const estimator = new RemainingEstimator();
  return run.samples.map((s) => {
    estimator.sample(s.t, s.f);
    return { ...s, r: estimator.remaining(s.t), truth: run.end - s.t };
  });
}

const msOf = (r: Remaining): number | null => (r.kind === 'left' ? r.ms : null);

/** A steady stage of 80 s whose fraction is reported to 3 decimals. */
const steady = (seed: string): Run => poll((t) => Math.floor((t / 80_000) * 1000) / 1000, 80_000, seed);
/** A render of 10 parts of 11 s each, reported as each part ends (stall, jump): 0, 0.1, 0.2, … */
const coarse = (seed: string): Run => poll((t) => Math.floor(t / 11_000) / 10, 110_000, seed);
/** 30 s of loading at 0, then 50 s of steady work. */
const loadsFirst = (seed: string): Run => poll((t) => (t < 30_000 ? 0 : (t - 30_000) / 50_000), 80_000, seed);
/** Steady to 0.6 in 30 s, stuck there 100 s, then the rest in 20 s. */
const stalls = (seed: string): Run =>
  poll(
    (t) => (t < 30_000 ? (t / 30_000) * 0.6 : t < 130_000 ? 0.6 : 0.6 + ((t - 130_000) / 20_000) * 0.4),
    150_000,
    seed,
  );
/** At 1 after 10 s, then 71 s more of work it does not report. */
const doneEarly = (seed: string): Run => poll((t) => Math.min(1, t / 10_000), 81_000, seed);

const SEEDS = ['a', 'b', 'c', 'd', 'e'];

describe('the demo’s estimate of the time left', () => {
  test('no number until the fraction has moved twice', () => {
    const estimator = new RemainingEstimator();
    expect(estimator.remaining(0)).toEqual({ kind: 'estimating' });
    estimator.sample(0, 0);
    estimator.sample(1000, 0.1);
    expect(estimator.remaining(1000)).toEqual({ kind: 'estimating' });
    estimator.sample(2000, 0.2);
    expect(estimator.remaining(2000)).toEqual({ kind: 'left', ms: 8000 });
    expect(remainingText(estimator.remaining(2000))).toBe('about 8 s left');
  });

  for (const [name, make] of [
    ['steady', steady],
    ['coarse jumps', coarse],
    ['loads at 0 first', loadsFirst],
  ] as const)
    test(`${name}: within ±30 % of the true time left from 30 % done, and no jump over ×2`, () => {
      for (const seed of SEEDS) {
        const run = make(seed);
        const estimates = replay(run);
        const late = estimates.filter((e) => e.f >= 0.3 && e.truth >= 2000);
        expect(late.length).toBeGreaterThan(10);
        for (const e of late) {
          const ms = msOf(e.r);
          expect(ms, `${seed} at ${Math.round(e.t)} ms (${e.f}): ${remainingText(e.r)}`).not.toBeNull();
          // ±30 %, give or take one poll and its lateness (1.3 s: the page sees a move up to that late).
          expect(Math.abs(ms! - e.truth), `${seed} at ${Math.round(e.t)} ms`).toBeLessThanOrEqual(0.3 * e.truth + 1300);
        }
        // Successive numbers (the last 5 s count down by a second a poll, so they are left out).
        const numbers = late.filter((e) => e.truth >= 5000).map((e) => msOf(e.r)!);
        for (let i = 1; i < numbers.length; i++) {
          const ratio = numbers[i]! / numbers[i - 1]!;
          expect(ratio, `${seed}: ${numbers[i - 1]} → ${numbers[i]}`).toBeLessThanOrEqual(2);
          expect(ratio, `${seed}: ${numbers[i - 1]} → ${numbers[i]}`).toBeGreaterThanOrEqual(0.5);
        }
      }
    });

  test('while the fraction sits at 0 it says it is estimating, not a number', () => {
    for (const e of replay(loadsFirst('a'))) if (e.f === 0) expect(e.r).toEqual({ kind: 'estimating' });
  });

  for (const [name, make] of [
    ['coarse jumps', coarse],
    ['stalls for 100 s', stalls],
    ['at 1 early', doneEarly],
    ['steady', steady],
  ] as const)
    test(`${name}: a stalled fraction never makes the estimate grow`, () => {
      for (const seed of SEEDS) {
        const estimates = replay(make(seed));
        for (let i = 1; i < estimates.length; i++) {
          const [before, after] = [estimates[i - 1]!, estimates[i]!];
          if (after.f !== before.f) continue;
          const [a, b] = [msOf(before.r), msOf(after.r)];
          if (a !== null && b !== null) expect(b, `${seed} at ${Math.round(after.t)} ms`).toBeLessThanOrEqual(a);
          // Out of a number into one (other than by a move of the fraction) would be a guess from the clock.
          if (a === null) expect(b, `${seed} at ${Math.round(after.t)} ms`).toBeNull();
        }
      }
    });

  test('a 100 s stall: the estimate stays put, then says it is estimating', () => {
    const estimates = replay(stalls('a'));
    const stalled = estimates.filter((e) => e.f === 0.6);
    expect(stalled.length).toBeGreaterThan(90);
    const numbers = stalled.map((e) => msOf(e.r)).filter((ms) => ms !== null);
    // Before the stall the rate said 20 s: it counts that down, then says it is estimating (40 % is
    // left, far more than one move), never "almost done".
    expect(Math.max(...numbers)).toBeLessThanOrEqual(25_000);
    expect(numbers.length).toBeLessThan(30);
    expect(stalled.slice(numbers.length).every((e) => e.r.kind === 'estimating')).toBe(true);
  });

  test('never "about 0 s" while the step runs: "almost done" instead', () => {
    for (const make of [steady, coarse, loadsFirst, stalls, doneEarly])
      for (const seed of SEEDS)
        for (const e of replay(make(seed))) {
          expect(remainingText(e.r)).not.toMatch(/about 0 s/);
          if (e.f === 1) expect(e.r).toEqual({ kind: 'almost' });
        }
    const estimator = new RemainingEstimator();
    estimator.sample(0, 0);
    estimator.sample(10_000, 0.5);
    estimator.sample(19_700, 0.985);
    expect(remainingText(estimator.remaining(19_700))).toBe('almost done');
  });
});
