// Runs one vitest tier (`unit`, `browser` or `consumer`) with a header and its wall time, so `npm test`
// shows where each tier starts and how long it took.
import { spawnSync } from 'node:child_process';

const tier = process.argv[2];
if (tier !== 'unit' && tier !== 'browser' && tier !== 'consumer') {
  console.error('usage: node scripts/test-tier.mjs unit|browser|consumer [vitest args…]');
  process.exit(2);
}
console.log(`\n=== ${tier} tier`);
const started = performance.now();
const run = spawnSync('npx', ['vitest', 'run', '--project', tier, ...process.argv.slice(3)], { stdio: 'inherit' });
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const target = tier === 'unit' ? ' (target: under 90 s on 2 idle cores)' : '';
console.log(`=== ${tier} tier: ${seconds} s${target}, exit ${run.status ?? run.signal}`);
process.exit(run.status ?? 1);
