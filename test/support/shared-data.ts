/**
 * Tests that need the shared data beside the checkout (`../shared`, or `MULTICAM_SHARED`:
 * real faces, pyannote's model and sample) ask for it here. Present: the test runs. Absent on a
 * developer's machine: the test is skipped (vitest's skip, so the tier counts it as skipped, not
 * passed). Absent where `CI=true`: the file fails, naming what is missing, because CI is
 * expected to have the data and a skipped real-data test must not pass for a green one.
 *
 * @example
 * const present = requireSharedData([SEGMENTATION_MODEL_PATH]);
 * describe.skipIf(!present)('the real model (skipped when ../shared lacks it)', () => { … });
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FACES_DIR, GRID_CLIPS } from '../../tools/fixtures/faces-set.ts';

/** The error of a CI run that lacks shared data. */
export class SharedDataMissingError extends Error {
  override name = 'SharedDataMissingError';
}

/**
 * Whether every path exists. When one does not and `env.CI` is `'true'`, throws
 * {@link SharedDataMissingError} naming the missing paths instead of returning false.
 */
export function requireSharedData(paths: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  const missing = paths.filter((path) => !existsSync(path));
  if (missing.length === 0) return true;
  if (env['CI'] === 'true')
    throw new SharedDataMissingError(
      `shared test data missing: ${missing.join(', ')}. CI (CI=true) runs the tests that need it; ` +
        'put the shared data beside the checkout (../shared) or point MULTICAM_SHARED at it',
    );
  return false;
}

/** {@link requireSharedData} for the real-face set's GRID clips (`../shared/data/faces`). */
export function requireFacesData(env: NodeJS.ProcessEnv = process.env): boolean {
  return requireSharedData(
    GRID_CLIPS.map((clip) => join(FACES_DIR, `${clip}.mpg`)),
    env,
  );
}
