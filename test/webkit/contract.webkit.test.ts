/**
 * The whole contract suite through the real service worker in WebKit (Debian's WebKitGTK
 * MiniBrowser under WebKitWebDriver and xvfb-run, classic WebDriver), against the foreign base
 * URL that only the worker can answer (test/webkit/contract-page.ts says why), as it runs in
 * Node, Chromium and Firefox. No codecs are involved, so WebKitGTK's `AudioData.copyTo` crash
 * (docs/browsers.md) does not reach it. Skipped with the reason where WebKit is missing, except
 * where CI=true, where it fails naming what is missing.
 */
import { afterAll, describe } from 'vitest';
import { FOREIGN_API_ORIGIN, makePageHarness } from '../contract/browser-harness.ts';
import { defineContractSuite } from '../contract/suite.ts';
import { requireWebKit, startWebKitHarnessRun, webKitSkipReason, type WebKitHarnessRun } from './contract-page.ts';

const present = requireWebKit();

let run: Promise<WebKitHarnessRun> | undefined;
const webkit = (): Promise<WebKitHarnessRun> => (run ??= startWebKitHarnessRun());
afterAll(async () => {
  await (await run)?.close();
});

const BASE_URL = `${FOREIGN_API_ORIGIN}/api`;
describe.skipIf(!present)(present ? 'WebKitGTK' : `WebKitGTK (skipped: ${webKitSkipReason()})`, () => {
  defineContractSuite('service worker in WebKit, foreign base URL', async () =>
    makePageHarness(await (await webkit()).openPage({ basePath: '/api', apiOrigins: [FOREIGN_API_ORIGIN] }), {
      baseUrl: BASE_URL,
    }),
  );
});
