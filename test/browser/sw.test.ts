/**
 * The service worker answers the contract: for the same-origin base path and for a foreign
 * base URL the registration names (https://api.example.com/api, unreachable from this
 * Chromium by its host-resolver rules, so only the worker can answer), and leaves every other
 * URL alone.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  startBrowserRun,
  SERVED_BY_HEADER,
  type BrowserRun,
  type HarnessPageHandle,
} from '../contract/browser-harness.ts';

let run: BrowserRun;
let harness: HarnessPageHandle;
let apiKey: string;

beforeAll(async () => {
  run = await startBrowserRun();
  harness = await run.openHarness({ basePath: '/api', apiOrigins: ['https://api.example.com'] });
  ({ apiKey } = await harness.call('createAccount', undefined));
});
afterAll(async () => {
  await run?.close();
});

test('the service worker controls the harness page with its configured base path', async () => {
  const controller = await harness.page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null);
  expect(controller).toMatch(/\/sw\.js\?base=%2Fapi&db=[^&]+&origin=https%3A%2F%2Fapi\.example\.com$/);
});

test.each([
  ['same-origin base path', () => `${run.server.origin}/api/jobs`],
  ['foreign base URL', () => 'https://api.example.com/api/jobs'],
])('%s: listJobs is answered by the service worker', async (label, url) => {
  const tag = `list-${label}`;
  const { result, response } = await harness.callObserved(tag, 'request', url(), {
    headers: { authorization: `Bearer ${apiKey}`, 'x-harness-request': tag },
  });
  expect(result.status).toBe(200);
  expect(JSON.parse(result.text)).toEqual({ jobs: [] });
  expect(result.headers[SERVED_BY_HEADER]).toBe('service-worker');
  expect(response.fromServiceWorker()).toBe(true);
});

test('a request without a key gets the contract 401 from the worker', async () => {
  const result = await harness.call('request', 'https://api.example.com/api/jobs');
  expect(result.status).toBe(401);
  expect(result.headers[SERVED_BY_HEADER]).toBe('service-worker');
  expect(JSON.parse(result.text)).toMatchObject({ error: expect.any(String) });
});

test('paths outside the base path go to the network untouched', async () => {
  const tag = 'static';
  const { result, response } = await harness.callObserved(tag, 'request', `${run.server.origin}/sw.js`, {
    headers: { 'x-harness-request': tag },
  });
  expect(result.status).toBe(200);
  expect(result.headers[SERVED_BY_HEADER]).toBeUndefined();
  expect(response.fromServiceWorker()).toBe(false);
  // The foreign host is unreachable: outside the base path nothing answers for it.
  await expect(harness.call('request', 'https://api.example.com/not-the-api')).rejects.toThrow(/Failed to fetch/);
});
