/**
 * Issue 5 on a long set: "median offset error ≤ 1 ms, worst ≤ 1 frame; drift error ≤ 1 frame
 * at the end of a long set". Generating the long set (160×90 at 10 fps, 10 minutes by default)
 * takes 20–30 s on two shared cores and 75 s for 30 minutes, so this runs only with
 * MULTICAM_LONG=1; MULTICAM_LONG_MINUTES picks the length.
 *
 *   MULTICAM_LONG=1 npx vitest run test/node/sync/long.test.ts
 *
 * The measurement itself is bench/sync/drift-long.ts (which also prints the figures).
 */
import { expect, test } from 'vitest';
import { measureLongDrift } from '../../../bench/sync/drift-long.ts';

const FRAME_MS = 1000 / 30;
const minutes = Number(process.env['MULTICAM_LONG_MINUTES'] ?? '10');

test.runIf(process.env['MULTICAM_LONG'] === '1')(
  `long set (${minutes} min): offsets, drift and the error at the end against truth.json (skipped unless MULTICAM_LONG=1: it generates a long set)`,
  async () => {
    // ±150 ppm: with seed 1 the cameras run at +85.6, +74.1 and −27.4 ppm, so one is −101.5 ppm
    // against the reference camera, the size of drift consumer cameras show.
    const r = await measureLongDrift(minutes, '1', 150);
    const others = r.rows.filter((x) => !x.isReference);
    expect(others.length).toBeGreaterThanOrEqual(2);
    for (const x of others) {
      console.log(
        `${x.label}: offset error ${x.offsetErrorMs.toFixed(3)} ms, drift error ${x.driftErrorPpm.toFixed(3)} ppm, ` +
          `end (${(x.endMs / 60_000).toFixed(1)} min) ${x.endErrorMs.toFixed(3)} ms, 60 min ${x.hourErrorMs.toFixed(3)} ms`,
      );
      // Long enough that drift is measured well: far inside the ±100 ppm the set is made with.
      expect(x.driftErrorPpm).toBeLessThan(1);
      expect(x.endErrorMs).toBeLessThanOrEqual(FRAME_MS);
    }
    const errors = r.rows.map((x) => x.offsetErrorMs).sort((a, b) => a - b);
    expect(errors[Math.floor(errors.length / 2)]!).toBeLessThanOrEqual(1);
    expect(errors.at(-1)!).toBeLessThanOrEqual(FRAME_MS);
  },
  // Generation dominates (about 1/25 of real time at 160×90 on two shared cores); generous for load.
  Math.max(10, minutes * 3) * 60_000,
);
