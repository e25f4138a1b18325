/**
 * A vitest reporter that counts the run's tests (passed, failed, skipped) and, when
 * `MULTICAM_TIER_COUNTS` names a file, writes them there as JSON for scripts/test-tier.mjs to
 * print as the tier's closing line. Skipped tests (shared data absent, no WebGPU adapter) are
 * counted as skipped, never as passed. A file that failed outside any test (at import, or in a
 * hook) counts as one failed test, and so does each unhandled error.
 *
 * @module
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** What the reporter writes. */
export interface TierCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** Counts the tests of a finished run. */
export function countTests(modules: ReadonlyArray<TestModule>, unhandledErrors: number): TierCounts {
  const counts: TierCounts = { passed: 0, failed: unhandledErrors, skipped: 0 };
  for (const module of modules) {
    let failedTests = 0;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') counts.passed++;
      else if (state === 'skipped') counts.skipped++;
      else if (state === 'failed') failedTests++;
    }
    counts.failed += failedTests;
    if (failedTests === 0 && module.state() === 'failed') counts.failed++;
  }
  return counts;
}

/** Writes the counts to `MULTICAM_TIER_COUNTS` (does nothing without it). */
export default class TierCountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const file = process.env['MULTICAM_TIER_COUNTS'];
    if (!file) return;
    writeFileSync(file, JSON.stringify(countTests(modules, unhandledErrors.length)));
  }
}
