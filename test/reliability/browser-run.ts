/**
 * A {@link BrowserRun} (the contract harness's browser side) over a test build of the
 * current sources in `.cache/reliability-test-build`, built once (`MULTICAM_REBUILD=1`
 * rebuilds), so the reliability tests never run against a stale shared dist-test/ and never
 * rewrite it under another test.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serveBrowserRun, type BrowserRun } from '../contract/browser-harness.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Where this suite's test build lives. */
export const RELIABILITY_BUILD_DIR = join(ROOT, '.cache/reliability-test-build');

/** Builds the test pages and the service worker from the current sources when not built yet. */
export function ensureReliabilityBuild(): void {
  const marker = join(RELIABILITY_BUILD_DIR, '.built');
  if (existsSync(marker) && process.env['MULTICAM_REBUILD'] !== '1') return;
  execFileSync('npx', ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], {
    stdio: 'inherit',
    cwd: ROOT,
    env: { ...process.env, MULTICAM_OUT_DIR: RELIABILITY_BUILD_DIR },
  });
  writeFileSync(marker, new Date().toISOString());
}

/** Chromium plus a static server over {@link RELIABILITY_BUILD_DIR}; harness pages as in the contract suite. */
export async function startReliabilityRun(): Promise<BrowserRun> {
  ensureReliabilityBuild();
  return serveBrowserRun(RELIABILITY_BUILD_DIR, 'multicam-reliability');
}
