/**
 * The demo app the browser tests serve: the demo's built-in sample is made (once; it is
 * cached) and the app built into `.cache/app-site/` by the CLI's own {@link ensureAppSite},
 * which reuses the build while no source changed. Every test file that drives the demo pages
 * (Chromium and Firefox tiers) serves this one build instead of building its own.
 *
 * @module
 */
import { makeSample } from '../../scripts/make-sample.ts';
import { ensureAppSite } from '../../src/cli/site.ts';
import { ROOT } from './build-site.ts';

/** Makes the sample when missing, builds the app when stale; returns the folder to serve. */
export function demoAppSite(): string {
  makeSample({ root: ROOT });
  return ensureAppSite();
}
