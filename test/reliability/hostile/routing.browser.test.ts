/**
 * What the real service worker answers in a controlled page (issue 48): a webhook delivery to a
 * receiver listening under the base path, a foreign origin the app did not configure, and a host
 * app's own same-origin `/api/other` all reach the network; a configured foreign base is
 * answered. The receivers are real node:http servers on other 127.0.0.1 ports (other origins).
 */
import type { Response as PwResponse } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  startBrowserRun,
  SERVED_BY_HEADER,
  type BrowserRun,
  type HarnessPageHandle,
} from '../../contract/browser-harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { patient } from '../../support/patience.ts';

let run: BrowserRun;
let harness: HarnessPageHandle;
let apiKey: string;
/** Its origin is configured as a foreign API base; a webhook receiver also listens there. */
let configured: WebhookReceiver;
/** An origin nobody configured. */
let other: WebhookReceiver;

beforeAll(async () => {
  run = await startBrowserRun();
  configured = await startWebhookReceiver({ allowOrigin: run.server.origin });
  other = await startWebhookReceiver({ allowOrigin: run.server.origin });
  harness = await run.openHarness({ basePath: '/api', apiOrigins: [configured.origin] });
  ({ apiKey } = await harness.call('createAccount', undefined));
});
afterAll(async () => {
  await run?.close();
  await configured?.close();
  await other?.close();
});

/** Runs a fetch in the page and the network-level response Playwright saw for `method url`. */
async function observed(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string; headers: Record<string, string>; response: PwResponse }> {
  const seen = harness.page.waitForResponse((r) => r.url() === url && r.request().method() === method, {
    timeout: patient(30_000),
  });
  const result = await harness.call('request', url, { method, headers, ...(body === undefined ? {} : { body }) });
  return { ...result, response: await seen };
}

test('a webhook delivery (webhook-id) to a receiver under the base path reaches the receiver, even on a configured origin', async () => {
  const url = `${configured.origin}/api/jobs`;
  const body = JSON.stringify({ type: 'job.complete' });
  const r = await observed('POST', url, { 'content-type': 'application/json', 'webhook-id': 'msg_routing_1' }, body);
  expect(r.status, r.text).toBe(200);
  expect(r.headers[SERVED_BY_HEADER]).toBeUndefined();
  expect(r.response.fromServiceWorker()).toBe(false);
  const posts = await configured.waitForPosts(1, 10_000);
  expect(posts[0]).toMatchObject({ path: '/api/jobs', body });
  expect(posts[0]!.headers['webhook-id']).toBe('msg_routing_1');
});

test('a foreign origin nobody configured goes to the network, under the base path too', async () => {
  const url = `${other.origin}/api/jobs`;
  const r = await observed('POST', url, { 'content-type': 'text/plain' }, 'hello');
  expect(r.status, r.text).toBe(200);
  expect(r.headers[SERVED_BY_HEADER]).toBeUndefined();
  expect(r.response.fromServiceWorker()).toBe(false);
  expect((await other.waitForPosts(1, 10_000))[0]).toMatchObject({ path: '/api/jobs', body: 'hello' });
});

test('a host app’s own same-origin /api/other goes to the network', async () => {
  const r = await observed('GET', `${run.server.origin}/api/other`, {});
  expect(r.headers[SERVED_BY_HEADER]).toBeUndefined();
  expect(r.response.fromServiceWorker()).toBe(false);
});

test('the configured foreign base and the page’s own origin are answered by the worker', async () => {
  const before = configured.requests.length;
  for (const url of [`${configured.origin}/api/jobs`, `${run.server.origin}/api/jobs`]) {
    const r = await observed('GET', url, { authorization: `Bearer ${apiKey}` });
    expect(r.status, r.text).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ jobs: [] });
    expect(r.headers[SERVED_BY_HEADER]).toBe('service-worker');
    expect(r.response.fromServiceWorker()).toBe(true);
  }
  expect(configured.requests.length, 'the receiver saw none of it').toBe(before);
});
