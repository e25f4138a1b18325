/**
 * The contract suite against the real service worker in Chromium: one browser for the
 * file, a fresh harness page and database per test (test/contract/browser-harness.ts).
 */
import { afterAll } from 'vitest';
import { makeBrowserHarness, startBrowserRun, type BrowserRun } from './browser-harness.ts';
import { defineContractSuite } from './suite.ts';

let run: Promise<BrowserRun> | undefined;
const browser = (): Promise<BrowserRun> => (run ??= startBrowserRun());
afterAll(async () => {
  await (await run)?.close();
});

defineContractSuite('service worker', async () => makeBrowserHarness(await browser()));
