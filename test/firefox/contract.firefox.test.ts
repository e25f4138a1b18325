/**
 * The contract suite through the real service worker in Firefox (Debian's firefox-esr, driven
 * over WebDriver BiDi): the groups a client's main flow crosses, against the foreign base URL
 * that only the worker can answer (test/firefox/contract-page.ts says why). The whole suite runs
 * in Node and in Chromium (test/contract/contract.browser.test.ts); which groups run here, and
 * why, is in docs/browsers.md.
 */
import { afterAll } from 'vitest';
import { FOREIGN_API_ORIGIN, makePageHarness } from '../contract/browser-harness.ts';
import { defineContractSuite, type ContractGroup } from '../contract/suite.ts';
import { startFirefoxHarnessRun, type FirefoxHarnessRun } from './contract-page.ts';

/** A client's flow: its key, a job, its uploads (PUT and 100 MB multipart), processing, mapping, the render. */
export const FIREFOX_CONTRACT_GROUPS: readonly ContractGroup[] = [
  'authentication',
  'createJob',
  'uploads and downloads',
  'startProcessing',
  'submitSpeakerMapping',
  'startRender, render results and approveJob',
];

let run: Promise<FirefoxHarnessRun> | undefined;
const firefox = (): Promise<FirefoxHarnessRun> => (run ??= startFirefoxHarnessRun());
afterAll(async () => {
  await (await run)?.close();
});

const BASE_URL = `${FOREIGN_API_ORIGIN}/api`;
defineContractSuite(
  'service worker in Firefox, foreign base URL',
  async () =>
    makePageHarness(await (await firefox()).openPage({ basePath: '/api', apiOrigins: [FOREIGN_API_ORIGIN] }), {
      baseUrl: BASE_URL,
    }),
  { only: FIREFOX_CONTRACT_GROUPS },
);
