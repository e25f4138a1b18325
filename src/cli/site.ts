/**
 * The built app that Node-side runners serve: one Vite build of the demo page, the review
 * editor and the service worker in `.cache/app-site/`, rebuilt only when a source is newer
 * than the build (or the demo's built-in sample was made after it). The CLI (`multicam
 * edit`) serves it, and so do the browser tests of the demo page, so one build serves a
 * whole test run instead of one per test file; `dist-app/` (`npm run build`) is left alone.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** Where {@link ensureAppSite} builds the app. */
export const APP_SITE = join(ROOT, '.cache/app-site');
const STAMP = join(APP_SITE, '.built-at');
/** What the build reads: a change to any of them makes the next call rebuild. */
const SOURCES = ['src', 'demo', 'review', 'workers', 'vite.config.ts', 'package-lock.json'];
/** The demo's built-in sample (scripts/make-sample.ts): the build copies it to /sample/ when it exists. */
const SAMPLE_MANIFEST = join(ROOT, '.cache/sample/manifest.json');

/** The newest modification time (ms) of `path` or anything under it: a build is stale when a source is newer. */
export function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Whether the build in {@link APP_SITE} is newer than every source and than the sample, if one was made. */
export function appSiteFresh(): boolean {
  if (!existsSync(STAMP) || !existsSync(join(APP_SITE, 'sw.js'))) return false;
  const sources = SOURCES.map((p) => join(ROOT, p)).filter((p) => existsSync(p));
  const built = statSync(STAMP).mtimeMs;
  if (sources.some((p) => newestMtime(p) >= built)) return false;
  return !existsSync(SAMPLE_MANIFEST) || statSync(SAMPLE_MANIFEST).mtimeMs < built;
}

/**
 * Builds the app into {@link APP_SITE} unless that build is fresh (or `rebuild`); returns the
 * folder. Throws the build's error when Vite fails.
 *
 * @example
 * const server = await serveStatic(ensureAppSite(), 0);
 */
export function ensureAppSite(options: { rebuild?: boolean; say?: (line: string) => void } = {}): string {
  if (options.rebuild !== true && appSiteFresh()) return APP_SITE;
  options.say?.('building the app (vite) into .cache/app-site …');
  execFileSync('node', ['scripts/copy-assets.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, MULTICAM_OUT_DIR: APP_SITE },
  });
  writeFileSync(STAMP, new Date().toISOString());
  return APP_SITE;
}
