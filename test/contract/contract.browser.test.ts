/**
 * The contract suite against the real service worker in Chromium: one browser for the
 * file, a harness page started afresh on a new database per test (test/contract/browser-harness.ts).
 * It runs whole with the page's own origin as base URL, and again, for the groups a client's
 * URLs and links cross, with a foreign base URL (https://api.example.com/api, unreachable from
 * this Chromium, so only the worker can answer), which is how a client with a hard-coded host
 * runs in the page. The other groups with the foreign base URL are in the deep tier
 * (test/deep/contract-foreign.test.ts): they repeat cases whose answers do not depend on the host.
 */
import { afterAll } from 'vitest';
import { FOREIGN_BASE_URL_GROUPS, makeBrowserHarness, startBrowserRun, type BrowserRun } from './browser-harness.ts';
import { defineContractSuite } from './suite.ts';

let run: Promise<BrowserRun> | undefined;
const browser = (): Promise<BrowserRun> => (run ??= startBrowserRun());
afterAll(async () => {
  await (await run)?.close();
});

defineContractSuite('service worker', async () => makeBrowserHarness(await browser()));
defineContractSuite(
  'service worker, foreign base URL',
  async () => makeBrowserHarness(await browser(), { baseUrl: 'https://api.example.com/api' }),
  { only: FOREIGN_BASE_URL_GROUPS },
);
