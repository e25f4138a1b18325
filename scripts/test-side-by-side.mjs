// Runs tiers in lanes side by side: `node scripts/test-side-by-side.mjs browser firefox+consumer` runs the browser
// tier in one lane and, beside it, the firefox tier then the consumer tier. The browser tiers each drive one
// browser through one file at a time and spend much of their time waiting on it (a job's stages, software decoding
// in Firefox), so on 2 cores running them together takes far less wall time than one after the other
// (docs/testing.md, "npm test"). Before they start, the sample and the app build the tiers serve are made once
// (test/support/app-site.ts), so two never build the same folder at once.
//
// The first lane's output streams as it runs; each other lane's is kept and printed whole when it ends, so the log
// reads tier by tier, each closing with its count line (scripts/test-tier.mjs). Every tier of a lane runs even when
// an earlier one failed. The last lines printed are every tier's count line and the names of its failed tests, so a
// log cut to its tail still says what failed and where. Exits 1 when any tier failed.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const lanes = process.argv.slice(2).map((lane) => lane.split('+'));
if (lanes.length === 0 || lanes.some((lane) => lane.some((tier) => tier === ''))) {
  console.error('usage: node scripts/test-side-by-side.mjs TIER[+TIER…] [TIER[+TIER…]…]');
  process.exit(2);
}
const ROOT = join(import.meta.dirname, '..');
const prepared = spawnSync(
  'npx',
  [
    'tsx',
    '-e',
    "import('./test/support/app-site.ts').then((m) => console.log('app build for the browser tiers: ' + m.demoAppSite()))",
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
if (prepared.status !== 0) {
  console.error('the app build the browser tiers serve failed (see above)');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'multicam-side-by-side-'));
const summaryFile = join(dir, 'summary.txt');

/** Runs one tier; its output goes to the terminal, or to `log` when given. Resolves to its exit code. */
function runTier(tier, log) {
  const child = spawn('node', [join(ROOT, 'scripts/test-tier.mjs'), tier], {
    cwd: ROOT,
    env: { ...process.env, MULTICAM_TIER_SUMMARY: summaryFile },
    stdio: log === null ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  if (log !== null) {
    const out = createWriteStream(log, { flags: 'a' });
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
}

const runs = lanes.map((tiers, i) => {
  const log = i === 0 ? null : join(dir, `lane-${i}.log`);
  const done = (async () => {
    let failed = false;
    for (const tier of tiers) if ((await runTier(tier, log)) !== 0) failed = true;
    return failed;
  })();
  return { tiers, log, done };
});
let failed = false;
for (const run of runs) {
  if (await run.done) failed = true;
  if (run.log !== null) {
    console.log(
      `\n--- ${run.tiers.join(', then ')} (ran beside ${lanes[0].join(', ')}; the output, kept until it ended)`,
    );
    process.stdout.write(readFileSync(run.log, 'utf8'));
  }
}
let summary;
try {
  summary = readFileSync(summaryFile, 'utf8');
} catch {
  summary = 'no tier wrote its counts\n';
}
console.log(`\n=== every tier (lanes: ${lanes.map((tiers) => tiers.join(' then ')).join(' | ')})`);
process.stdout.write(summary);
console.log(failed ? 'npm test: FAILED (the ✗ lines above name each failure)' : 'npm test: every tier passed');
rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
