// Runs browser tiers side by side: `node scripts/test-side-by-side.mjs browser firefox`. The Chromium and Firefox
// tiers each drive one browser through one file at a time and spend much of their time waiting on it (a job's
// stages, software decoding in Firefox), so on 2 cores running them together takes far less wall time than one
// after the other (docs/testing.md, "npm test"). Before they start, the sample and the app build both tiers serve
// are made once (test/support/app-site.ts), so the two never build the same folder at once.
//
// The first tier's output streams as it runs; each other tier's is kept and printed whole when it ends, so the log
// reads tier by tier, each closing with its count line (scripts/test-tier.mjs). Exits 1 when any tier failed.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tiers = process.argv.slice(2);
if (tiers.length === 0) {
  console.error('usage: node scripts/test-side-by-side.mjs TIER [TIER…]');
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
const runs = tiers.map((tier, i) => {
  const log = i === 0 ? null : join(dir, `${tier}.log`);
  const child = spawn('node', [join(ROOT, 'scripts/test-tier.mjs'), tier], {
    cwd: ROOT,
    stdio: log === null ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  if (log !== null) {
    const out = createWriteStream(log);
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  return { tier, log, done };
});
let failed = false;
for (const run of runs) {
  const code = await run.done;
  if (run.log !== null) {
    console.log(`\n--- ${run.tier} tier (ran beside the ${tiers[0]} tier; its output, kept until it ended)`);
    process.stdout.write(readFileSync(run.log, 'utf8'));
  }
  if (code !== 0) failed = true;
}
rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
