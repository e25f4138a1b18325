/**
 * The whole contract suite through the real service worker in Firefox (Debian's firefox-esr,
 * driven over WebDriver BiDi), against the foreign base URL that only the worker can answer
 * (test/firefox/contract-page.ts says why), as it runs in Node and in Chromium
 * (test/contract/contract.browser.test.ts). Each case starts the library again in one loaded
 * tab on a new database, about a second a case.
 */
import { afterAll } from 'vitest';
import { FOREIGN_API_ORIGIN, makePageHarness } from '../contract/browser-harness.ts';
import { defineContractSuite } from '../contract/suite.ts';
import { startFirefoxHarnessRun, type FirefoxHarnessRun } from './contract-page.ts';

let run: Promise<FirefoxHarnessRun> | undefined;
const firefox = (): Promise<FirefoxHarnessRun> => (run ??= startFirefoxHarnessRun());
afterAll(async () => {
  await (await run)?.close();
});

const BASE_URL = `${FOREIGN_API_ORIGIN}/api`;
defineContractSuite('service worker in Firefox, foreign base URL', async () =>
  makePageHarness(await (await firefox()).openPage({ basePath: '/api', apiOrigins: [FOREIGN_API_ORIGIN] }), {
    baseUrl: BASE_URL,
  }),
);
