/**
 * `ensureFixture(set, options)`: the synthetic multicam podcast other tests use. Generated
 * once into `.cache/fixtures/<set>-<hash>/` (keyed by set, seed, options and generator source)
 * and reused by every later test run.
 *
 * @example
 * const { dir, truth } = await ensureFixture('tiny');
 * const cam = join(dir, truth.sources[0].file); // offsetMs, driftPpm, turns... in truth
 *
 * @module
 */
import { ensureFixtureAt, FIXTURE_CACHE } from '../../tools/fixtures/cache.ts';
import type { FixtureOptions, FixtureSet } from '../../tools/fixtures/options.ts';
import type { Truth } from '../../tools/fixtures/truth.ts';
import { patient } from './patience.ts';

export type { Truth, TruthSource, TruthTurn } from '../../tools/fixtures/truth.ts';
export type { FixtureOptions, FixtureSet } from '../../tools/fixtures/options.ts';

/** Generation of the tiny set takes about 10 s on two cores; give hooks this much time. */
export const FIXTURE_TIMEOUT_MS = patient(120_000);

/**
 * Returns the fixture directory and its truth, generating it first when it is not cached.
 * Safe to call from parallel test files: one generates, the others wait for it.
 */
export async function ensureFixture(
  set: FixtureSet = 'tiny',
  options: FixtureOptions = {},
): Promise<{ dir: string; truth: Truth }> {
  const { dir, truth } = await ensureFixtureAt(set, options, FIXTURE_CACHE);
  return { dir, truth };
}
