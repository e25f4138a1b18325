// Runs one vitest tier (`unit`, `browser`, `firefox`, `webkit`, `consumer`, or `deep` outside CI) with a header, its wall time and its counts, so `npm test`
// shows where each tier starts, how long it took, and how many tests passed, failed and were skipped (a test skipped
// for want of shared data or a WebGPU adapter is counted as skipped, never as passed). The last line is the tier's
// closing line, `unit: 651 passed, 0 failed, 1 skipped`; test/support/tier-count-reporter.ts counts. Each failed
// test is named (with its error's first line) just before it; with MULTICAM_TIER_SUMMARY naming a file, the closing
// line and those names are appended there too, for scripts/test-side-by-side.mjs to print at the very end.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tier = process.argv[2];
const TIERS = ['unit', 'browser', 'firefox', 'webkit', 'consumer', 'deep'];
if (!TIERS.includes(tier)) {
  console.error(`usage: node scripts/test-tier.mjs ${TIERS.join('|')} [vitest args…]`);
  process.exit(2);
}
console.log(`\n=== ${tier} tier`);
const dir = mkdtempSync(join(tmpdir(), `multicam-${tier}-tier-`));
const countsFile = join(dir, 'counts.json');
const started = performance.now();
const run = spawnSync('npx', ['vitest', 'run', '--project', tier, ...process.argv.slice(3)], {
  stdio: 'inherit',
  env: { ...process.env, MULTICAM_TIER_COUNTS: countsFile },
});
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const target = tier === 'unit' ? ' (target: under 90 s on 2 idle cores)' : '';
const exit = run.status ?? run.signal;
let counts;
try {
  counts = JSON.parse(readFileSync(countsFile, 'utf8'));
} catch {
  counts = null;
}
rmSync(dir, { recursive: true, force: true });
if (counts === null) {
  // vitest ended before its reporters (a crash, a config error): the tier failed, with no tests to count.
  console.log(`=== ${tier} tier: no counts (vitest ended before reporting); ${seconds} s${target}, exit ${exit}`);
  counts = { passed: 0, failed: 1, skipped: 0, failures: ['vitest ended before reporting (see the tier output)'] };
} else if (run.status !== 0 && counts.failed === 0) {
  // Failed without a failed test (e.g. a reporter's error): still a failure.
  counts.failed = 1;
  counts.failures = [`vitest exited ${exit} with no failed test (see the tier output)`];
}
const tally = `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
console.log(`=== ${tier} tier: ${tally}; ${seconds} s${target}, exit ${exit}`);
const failures = (counts.failures ?? []).map((line) => `  ✗ ${line}`);
for (const line of failures) console.log(line);
console.log(`${tier}: ${tally}`);
const summary = process.env['MULTICAM_TIER_SUMMARY'];
if (summary) appendFileSync(summary, [`${tier}: ${tally}; ${seconds} s`, ...failures, ''].join('\n'));
process.exit(run.status ?? 1);
