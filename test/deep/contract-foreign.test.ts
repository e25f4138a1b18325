/**
 * Deep tier (`npm run test:deep`): the contract groups the browser tier does not run with a
 * foreign base URL (test/contract/contract.browser.test.ts runs the rest). Their answers do not
 * depend on the host a client calls, and the whole suite already runs through the same worker
 * with the page's own origin; together the two files are the whole suite on both base URLs.
 */
import { afterAll } from 'vitest';
import {
  FOREIGN_BASE_URL_GROUPS,
  makeBrowserHarness,
  startBrowserRun,
  type BrowserRun,
} from '../contract/browser-harness.ts';
import { CONTRACT_GROUPS, defineContractSuite } from '../contract/suite.ts';

let run: Promise<BrowserRun> | undefined;
const browser = (): Promise<BrowserRun> => (run ??= startBrowserRun());
afterAll(async () => {
  await (await run)?.close();
});

defineContractSuite(
  'service worker, foreign base URL (groups outside the browser tier)',
  async () => makeBrowserHarness(await browser(), { baseUrl: 'https://api.example.com/api' }),
  { only: CONTRACT_GROUPS.filter((group) => !FOREIGN_BASE_URL_GROUPS.includes(group)) },
);
