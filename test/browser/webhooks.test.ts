/**
 * Webhook delivery from a real Chromium tab to a real receiver on another 127.0.0.1 port
 * (cross-origin, so CORS applies), verified in Node with the official standardwebhooks
 * library. The page (test/browser/pages/webhooks.html) runs the real dispatcher on the app's
 * IndexedDB schema. The first test runs the whole app (service worker, reporter, test
 * engine); the others write events into the outbox from the page, as the stage reporter
 * does, to control delivery precisely (reloads, CORS, several tabs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { EventRecord } from '../../src/store/db.ts';
import type { OutboxEvent } from '../../src/webhooks/outbox.ts';
import type { RetrySchedule } from '../../src/webhooks/schedule.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { buildSite } from '../support/build-site.ts';
import { failFirst, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { patient } from '../support/patience.ts';

const PAGE = '/test/browser/pages/webhooks.html';

let outDir: string;
let server: StaticServer;
let chromium: LaunchedChromium;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  // A small build of this page only (the shared test build does not list it yet).
  outDir = mkdtempSync(join(tmpdir(), 'multicam-webhooks-page-'));
  await buildSite({ pages: { webhooks: PAGE }, outDir, sw: true });
  server = await serveStatic(outDir);
  chromium = await launchChromium();
});
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
  for (const page of chromium.context.pages()) await page.close();
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

function secret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
}

async function receiver(options: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(options);
  receivers.push(r);
  return r;
}

async function openPage(dbName: string): Promise<Page> {
  const page = await chromium.context.newPage();
  page.on('pageerror', (error) => console.error('page error:', error));
  await page.goto(`${server.origin}${PAGE}`);
  await page.waitForSelector('body[data-ready="1"]');
  await call(page, 'open', dbName);
  return page;
}

/** Calls `window.webhooks[method](...args)` in the page (test/browser/pages/webhooks.ts). */
function call<T = unknown>(page: Page, method: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(
    ([m, a]) => {
      const api = (window as unknown as { webhooks: Record<string, (...x: unknown[]) => unknown> }).webhooks;
      const fn = api[m];
      if (!fn) throw new Error(`window.webhooks.${m} does not exist`);
      return fn(...a);
    },
    [method, args] as [string, unknown[]],
  ) as Promise<T>;
}

function event(callbackUrl: string | null): EventRecord {
  const jobId = crypto.randomUUID();
  const now = Date.now();
  return {
    id: `msg_${crypto.randomUUID()}`,
    accountId: 'acc_browser',
    jobId,
    type: 'ready',
    payload: { jobId, status: 'ready', reviewUrl: `${server.origin}/review/?token=t` },
    callbackUrl,
    createdAt: now,
    seq: 1,
    delivery: { state: callbackUrl === null ? 'skipped' : 'pending', attempts: 0, nextAttemptAt: now, log: [] },
  };
}

test('end to end: a real job transition (service worker + reporter) sends a signed mapping webhook from the tab', async () => {
  const r = await receiver({ allowOrigin: server.origin });
  const page = await chromium.context.newPage();
  page.on('pageerror', (error) => console.error('page error:', error));
  await page.goto(`${server.origin}${PAGE}`);
  await page.waitForSelector('body[data-ready="1"]');
  // The poll is the wake-up here: the service does not announce recorded events on the channel yet.
  await call(page, 'startApp', {
    basePath: '/api',
    dbName: 'wh-e2e',
    schedule: { attempts: 3, attemptTimeoutMs: 2_000, backoffMs: [500, 500] },
    pollIntervalMs: 250,
  });
  const { accountId, apiKey } = await call<{ accountId: string; apiKey: string }>(page, 'createAccount');
  const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const created = await call<{ status: number; text: string }>(page, 'request', `${server.origin}/api/jobs`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ sources: [{ label: 'Cam A' }, { label: 'Cam B' }], autoMap: 'off', callbackUrl: r.url }),
  });
  expect(created.status, created.text).toBe(200);
  const { jobId, uploads } = JSON.parse(created.text) as { jobId: string; uploads: Record<string, { url: string }> };
  for (const info of Object.values(uploads)) {
    expect(
      (await call<{ status: number }>(page, 'request', info.url, { method: 'PUT', body: 'bytes of a source file' }))
        .status,
    ).toBe(200);
  }
  expect(
    (
      await call<{ status: number }>(page, 'request', `${server.origin}/api/jobs/${jobId}/process`, {
        method: 'POST',
        headers: auth,
      })
    ).status,
  ).toBe(200);
  const [a, b] = Object.keys(uploads) as [string, string];
  await call(page, 'completeStage', jobId, 'syncing', { durationsMs: { [a]: 60_000, [b]: 60_000 } });
  await call(page, 'completeStage', jobId, 'diarizing');
  const [post] = await r.waitForPosts(1, 10_000);
  const [signing] = await call<string[]>(page, 'signingSecrets', accountId);
  const body = new Webhook(signing!).verify(post!.body, post!.headers as Record<string, string>);
  expect(body).toMatchObject({ jobId, status: 'mapping', reviewUrl: expect.any(String), speakers: expect.any(Array) });
  expect(post!.headers['webhook-id']).toMatch(/^msg_/);
  await call(page, 'closeApp');
});

test('an event is delivered from the tab to a cross-origin receiver that allows it, and verifies', async () => {
  const signing = secret();
  const r = await receiver({ allowOrigin: server.origin });
  const page = await openPage('wh-deliver');
  const e = event(r.url);
  await call(page, 'start', {
    secrets: [signing],
    schedule: { attempts: 3, attemptTimeoutMs: 2_000, backoffMs: [500, 500] },
  });
  const t0 = Date.now();
  await call(page, 'record', e);
  const [post] = await r.waitForPosts(1, 10_000);
  console.info(
    `record -> POST at the receiver: ${post!.receivedAtEpochMs - t0} ms (Chromium, dispatcher idle, woken by the channel)`,
  );
  const stored = await call<OutboxEvent>(page, 'waitForState', e.id, 'delivered', patient(5_000));
  expect(stored.delivery).toMatchObject({ attempts: 1, log: [{ attempt: 1, status: 200 }] });
  expect(post?.headers['origin']).toBe(server.origin);
  expect(post?.headers['webhook-id']).toBe(e.id);
  expect(post?.body).toBe(JSON.stringify(e.payload));
  expect(new Webhook(signing).verify(post!.body, post!.headers as Record<string, string>)).toEqual(e.payload);
  // The browser asked the receiver's consent first: a preflight naming the signing headers.
  const preflight = r.requests.find((x) => x.method === 'OPTIONS');
  expect(preflight?.headers['access-control-request-method']).toBe('POST');
  expect(String(preflight?.headers['access-control-request-headers']).split(',').sort()).toEqual([
    'content-type',
    'webhook-id',
    'webhook-signature',
    'webhook-timestamp',
  ]);
});

test('a delivery survives a reload between attempts: the 2nd attempt comes from the reloaded tab, same id, and is the last', async () => {
  const signing = secret();
  const r = await receiver({ allowOrigin: server.origin, answer: failFirst(1, 503) });
  // The backoff leaves room (times PATIENCE) to reload before the second attempt is due.
  const schedule: RetrySchedule = { attempts: 3, attemptTimeoutMs: 2_000, backoffMs: [patient(1_500), 1_500] };
  const page = await openPage('wh-reload');
  const e = event(r.url);
  await call(page, 'start', { secrets: [signing], schedule });
  await call(page, 'record', e);
  await r.waitForPosts(1, 10_000);
  const afterFirst = await call<OutboxEvent>(page, 'waitForLoggedAttempt', e.id, 1, patient(5_000));
  expect(afterFirst.delivery).toMatchObject({ state: 'pending', attempts: 1, log: [{ attempt: 1, status: 503 }] });
  // Reload before the second attempt is due: the dispatcher in memory is gone.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  expect(await call(page, 'attemptsSeen')).toBe(0);
  await call(page, 'open', 'wh-reload');
  expect((await call<OutboxEvent | undefined>(page, 'read', e.id))?.delivery.attempts).toBe(1);
  expect(r.posts()).toHaveLength(1);
  await call(page, 'start', { secrets: [signing], schedule });
  const posts = await r.waitForPosts(2, 10_000);
  const stored = await call<OutboxEvent>(page, 'waitForState', e.id, 'delivered', patient(5_000));
  expect(stored.delivery.log.map((x) => x.status)).toEqual([503, 200]);
  expect(posts[1]!.receivedAtEpochMs).toBeGreaterThanOrEqual(afterFirst.delivery.nextAttemptAt - 5);
  expect(posts.map((p) => p.headers['webhook-id'])).toEqual([e.id, e.id]);
  expect(posts[1]!.headers['webhook-timestamp']).not.toBe(undefined);
  for (const p of posts)
    expect(new Webhook(signing).verify(p.body, p.headers as Record<string, string>)).toEqual(e.payload);
  // Acknowledged: never sent again, even after another reload.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await call(page, 'open', 'wh-reload');
  await call(page, 'start', { secrets: [signing], schedule });
  await new Promise((ok) => setTimeout(ok, 2_000));
  expect(r.posts()).toHaveLength(2);
});

test('a reload during an attempt: it counts, the next one is sent after limit + backoff by the reloaded tab', async () => {
  const signing = secret();
  // The time limit leaves room (times PATIENCE) to read the claim and reload while the first
  // attempt is still in flight; the first POST is held past it, the second is answered at once.
  const schedule: RetrySchedule = { attempts: 3, attemptTimeoutMs: patient(1_500), backoffMs: [500, 500] };
  const r = await receiver({
    allowOrigin: server.origin,
    answer: (n) => ({ status: 200, delayMs: n === 1 ? 4 * schedule.attemptTimeoutMs : 0 }),
  });
  const page = await openPage('wh-crash');
  const e = event(r.url);
  await call(page, 'start', { secrets: [signing], schedule });
  await call(page, 'record', e);
  await r.waitForPosts(1, 10_000);
  const claimed = await call<OutboxEvent>(page, 'read', e.id);
  expect(claimed.delivery).toMatchObject({ state: 'pending', attempts: 1, log: [] });
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await call(page, 'open', 'wh-crash');
  await call(page, 'start', { secrets: [signing], schedule });
  const posts = await r.waitForPosts(2, 10_000);
  expect(posts[1]!.receivedAtEpochMs).toBeGreaterThanOrEqual(claimed.delivery.nextAttemptAt - 5);
  const stored = await call<OutboxEvent>(page, 'waitForState', e.id, 'delivered', patient(5_000));
  expect(stored.delivery.log).toEqual([
    expect.objectContaining({ attempt: 1, error: expect.stringMatching(/never reported back/) }),
    expect.objectContaining({ attempt: 2, status: 200 }),
  ]);
  expect(posts.map((p) => p.headers['webhook-id'])).toEqual([e.id, e.id]);
});

test('a receiver without CORS consent: the browser blocks the POST and the log says what the receiver must allow', async () => {
  const r = await receiver({ allowOrigin: null });
  const page = await openPage('wh-cors');
  const e = event(r.url);
  await call(page, 'start', { secrets: [secret()], schedule: { attempts: 1, attemptTimeoutMs: 2_000, backoffMs: [] } });
  await call(page, 'record', e);
  const stored = await call<OutboxEvent>(page, 'waitForState', e.id, 'failed', patient(10_000));
  const error = stored.delivery.log[0]?.error ?? '';
  expect(error).toMatch(new RegExp(`^blocked by CORS( or network)?: `));
  expect(error).toContain(`the receiver at ${r.origin} must allow this origin`);
  expect(error).toContain(`Access-Control-Allow-Origin: ${server.origin}`);
  expect(error).toContain(
    'Access-Control-Allow-Headers: content-type, webhook-id, webhook-timestamp, webhook-signature',
  );
  // The browser reached the receiver (its preflight arrived) but never sent the POST.
  expect(r.requests.some((x) => x.method === 'OPTIONS')).toBe(true);
  expect(r.posts()).toHaveLength(0);
  console.info(`CORS diagnostic recorded in Chromium: ${error}`);
});

test('the diagnostic tells a CORS refusal from a host that is down when the receiver allows no-cors reads (CORP)', async () => {
  // Under the app's COEP require-corp, the no-cors probe can only read hosts that send
  // Cross-Origin-Resource-Policy; this receiver does, and still gives no CORS consent.
  const refusing = await receiver({ allowOrigin: null, crossOriginResourcePolicy: true });
  const down = await startWebhookReceiver();
  await down.close();
  const page = await openPage('wh-cors-probe');
  const [blocked, unreachable] = [event(refusing.url), event(down.url)];
  await call(page, 'start', { secrets: [secret()], schedule: { attempts: 1, attemptTimeoutMs: 2_000, backoffMs: [] } });
  await call(page, 'record', blocked);
  await call(page, 'record', unreachable);
  const a = await call<OutboxEvent>(page, 'waitForState', blocked.id, 'failed', patient(10_000));
  const b = await call<OutboxEvent>(page, 'waitForState', unreachable.id, 'failed', patient(10_000));
  expect(a.delivery.log[0]?.error).toMatch(
    new RegExp(
      `^blocked by CORS: the host is up but refused the cross-origin POST; the receiver at ${refusing.origin} must allow`,
    ),
  );
  expect(refusing.requests.map((x) => x.method).sort()).toEqual(['HEAD', 'OPTIONS']);
  expect(b.delivery.log[0]?.error).toMatch(
    new RegExp(`^blocked by CORS or network: the receiver at ${down.origin} must allow .*; or the host is unreachable`),
  );
});

test('two tabs: one dispatcher holds the lock, each event is sent once; a subscriber sees each event once across a reload', async () => {
  const r = await receiver({ allowOrigin: server.origin });
  const schedule: RetrySchedule = { attempts: 3, attemptTimeoutMs: 2_000, backoffMs: [500, 500] };
  const signing = secret();
  const [a, b] = [await openPage('wh-tabs'), await openPage('wh-tabs')];
  await call(a, 'start', { secrets: [signing], schedule });
  await call(b, 'start', { secrets: [signing], schedule });
  const events = [event(r.url), event(r.url), event(null)];
  for (const e of events) await call(b, 'record', e);
  await r.waitForPosts(2, 10_000);
  for (const e of events.slice(0, 2)) await call(a, 'waitForState', e.id, 'delivered', patient(5_000));
  await new Promise((ok) => setTimeout(ok, 500));
  expect(
    r
      .posts()
      .map((p) => p.headers['webhook-id'])
      .sort(),
  ).toEqual(
    events
      .slice(0, 2)
      .map((e) => e.id)
      .sort(),
  );
  // Only the tab that holds the lock made attempts (which one gets it first is up to the browser).
  const counts = [await call<number>(a, 'attemptsSeen'), await call<number>(b, 'attemptsSeen')];
  expect([...counts].sort()).toEqual([0, 2]);
  const [holder, other] = counts[0] === 2 ? [a, b] : [b, a];

  await call(other, 'subscribe', 'app');
  // Events of different jobs recorded in the same millisecond have no defined order; compare as sets.
  expect((await call<string[]>(other, 'received')).sort()).toEqual(events.map((e) => e.id).sort());
  await other.reload();
  await other.waitForSelector('body[data-ready="1"]');
  await call(other, 'open', 'wh-tabs');
  await call(other, 'subscribe', 'app');
  expect(await call<string[]>(other, 'received')).toEqual([]);
  const later = event(null);
  await call(holder, 'record', later);
  await expect.poll(() => call<string[]>(other, 'received'), { timeout: patient(5_000) }).toEqual([later.id]);

  // Closing the tab that holds the lock hands delivery over to the other tab.
  await call(other, 'start', { secrets: [signing], schedule });
  await holder.close();
  const handedOver = event(r.url);
  await call(other, 'record', handedOver);
  await call<OutboxEvent>(other, 'waitForState', handedOver.id, 'delivered', patient(10_000));
  expect(await call(other, 'attemptsSeen')).toBe(1);
  expect(r.posts()).toHaveLength(3);
});
