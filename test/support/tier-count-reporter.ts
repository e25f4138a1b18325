/**
 * A vitest reporter that counts the run's tests (passed, failed, skipped) and, when
 * `MULTICAM_TIER_COUNTS` names a file, writes them there as JSON for scripts/test-tier.mjs to
 * print as the tier's closing line. Skipped tests (shared data absent, no WebGPU adapter) are
 * counted as skipped, never as passed. A file that failed outside any test (at import, or in a
 * hook) counts as one failed test, and so does each unhandled error. Each failure is also named
 * with its first error's first line, so the run's last lines say what failed even when a long
 * log's head is cut off (scripts/test-side-by-side.mjs prints them last).
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
  /** One line per failure: `file > test: first line of its error`. */
  failures: string[];
}

/** The first line of an error's message, at most 300 characters. */
function firstLine(errors: ReadonlyArray<{ message?: string }> | undefined): string {
  const message = errors?.[0]?.message ?? 'no error message';
  const line = message.split('\n').find((l) => l.trim() !== '') ?? message;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Counts the tests of a finished run. */
export function countTests(
  modules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<{ message?: string }>,
): TierCounts {
  const counts: TierCounts = { passed: 0, failed: unhandledErrors.length, skipped: 0, failures: [] };
  for (const error of unhandledErrors) counts.failures.push(`unhandled error: ${firstLine([error])}`);
  for (const module of modules) {
    let failedTests = 0;
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state === 'passed') counts.passed++;
      else if (result.state === 'skipped') counts.skipped++;
      else if (result.state === 'failed') {
        failedTests++;
        counts.failures.push(`${module.moduleId} > ${test.fullName}: ${firstLine(result.errors)}`);
      }
    }
    counts.failed += failedTests;
    if (failedTests === 0 && module.state() === 'failed') {
      counts.failed++;
      counts.failures.push(`${module.moduleId} (outside its tests): ${firstLine(module.errors())}`);
    }
  }
  return counts;
}

/** Writes the counts to `MULTICAM_TIER_COUNTS` (does nothing without it). */
export default class TierCountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const file = process.env['MULTICAM_TIER_COUNTS'];
    if (!file) return;
    writeFileSync(file, JSON.stringify(countTests(modules, unhandledErrors)));
  }
}
