/**
 * A vitest reporter that adds up the `[reliability …] requests fuzzed: …` lines the
 * reliability test files print in their afterAll, and prints one total line at the end:
 *
 *   npx vitest run test/reliability --reporter=default --reporter=./test/reliability/summary-reporter.ts
 *
 * @module
 */
import type { Reporter } from 'vitest/node';

const LINE =
  /\[reliability ([^\]]+)\] requests fuzzed: (\d+), 4xx: (\d+), 5xx: (\d+), faults injected: (\d+), jobs lost: (\d+)/;

/** Sums the per-file tallies. */
export default class ReliabilitySummaryReporter implements Reporter {
  private readonly totals = [0, 0, 0, 0, 0];
  private readonly parts: string[] = [];

  onUserConsoleLog(log: { content: string }): void {
    const match = LINE.exec(log.content);
    if (!match) return;
    this.parts.push(match[1]!);
    for (let i = 0; i < 5; i++) this.totals[i]! += Number(match[i + 2]);
  }

  onTestRunEnd(): void {
    if (this.parts.length === 0) return;
    const [fuzzed, c4, c5, faults, lost] = this.totals;
    console.log(
      `\nreliability (${this.parts.join('; ')}):\nrequests fuzzed: ${fuzzed}, 4xx: ${c4}, 5xx: ${c5}, faults injected: ${faults}, jobs lost: ${lost}`,
    );
  }
}
