import { afterEach, describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WebhookDispatcher } from '../../../src/webhooks/dispatcher.ts';
import { readEvent, type OutboxDatabase, type OutboxEvent } from '../../../src/webhooks/outbox.ts';
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from '../../../src/webhooks/schedule.ts';
import {
  failFirst,
  startWebhookReceiver,
  type ReceivedRequest,
  type WebhookReceiver,
} from '../../support/webhook-receiver.ts';
import { completeEvent, newSigningSecret, openTestOutbox, reopenTestOutbox } from './outbox-fixture.ts';
import { patient } from '../../support/patience.ts';

// Short backoffs so the suite stays fast; the default schedule's arithmetic is tested in schedule.test.ts.
// An attempt's limit is patient: a loopback POST on a loaded machine took over 300 ms (CI failed
// on that), and only the test of the limit itself wants it reached.
const FAST: RetrySchedule = { attempts: 3, attemptTimeoutMs: patient(1_000), backoffMs: [150, 300] };
const SECRET = newSigningSecret();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(options: Parameters<typeof startWebhookReceiver>[0] = {}): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(options);
  cleanups.push(() => r.close());
  return r;
}

function dispatcher(
  db: OutboxDatabase,
  options: Partial<ConstructorParameters<typeof WebhookDispatcher>[0]> = {},
): WebhookDispatcher {
  const d = new WebhookDispatcher({
    db,
    signingSecrets: async () => [SECRET],
    schedule: FAST,
    locks: null,
    listen: false,
    // A day: a retry must come when the schedule says, never from the safety-net poll.
    pollIntervalMs: 86_400_000,
    ...options,
  });
  cleanups.push(() => d.stop());
  return d;
}

async function record(db: OutboxDatabase, event: OutboxEvent): Promise<OutboxEvent> {
  await db.put('events', event);
  return event;
}

/** Polls the stored record until `done` holds (the dispatcher writes it after the receiver answered). */
async function waitForRecord(
  db: OutboxDatabase,
  id: string,
  done: (r: OutboxEvent) => boolean,
  timeoutMs = 5_000,
): Promise<OutboxEvent> {
  const end = Date.now() + patient(timeoutMs);
  for (;;) {
    const r = await readEvent(db, id);
    if (r && done(r)) return r;
    if (Date.now() > end) throw new Error(`event ${id} still ${JSON.stringify(r?.delivery)}`);
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

function verify(request: ReceivedRequest, secret = SECRET): unknown {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('webhook dispatcher against a real HTTP receiver on 127.0.0.1', () => {
  test('2xx at once: one signed POST with the JSON body, then delivered and never sent again', async () => {
    const r = await receiver();
    const db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    const d = dispatcher(db);
    expect(await d.deliverDue()).toBe(1);
    const [post] = r.posts();
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.headers['webhook-id']).toBe(event.id);
    expect(post?.body).toBe(JSON.stringify(event.payload));
    expect(verify(post!)).toEqual(event.payload);
    const stored = await readEvent(db, event.id);
    expect(stored?.delivery).toMatchObject({ state: 'delivered', attempts: 1, log: [{ attempt: 1, status: 200 }] });
    expect(await d.deliverDue()).toBe(0);
    expect(r.posts()).toHaveLength(1);
  });

  test('fails twice then 2xx: 3 attempts, same webhook-id, backoff spacing, per-attempt timestamps', async () => {
    const r = await receiver({ answer: failFirst(2, 503) });
    const db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    // The record as stored after each attempt: its schedule, computed from the dispatcher's clock.
    const afterAttempt: OutboxEvent[] = [];
    const startedAt = Date.now();
    const d = dispatcher(db, { onAttempt: (x) => void afterAttempt.push(x) });
    d.start();
    // The poll is a day away: the retries arrive (within the test's time) only because the loop
    // wakes when the schedule says.
    const posts = await r.waitForPosts(3, 5_000);
    const stored = await waitForRecord(db, event.id, (x) => x.delivery.state !== 'pending');
    expect(stored.delivery.state).toBe('delivered');
    expect(stored.delivery.log.map((e) => e.status)).toEqual([503, 503, 200]);
    expect(new Set(posts.map((p) => p.headers['webhook-id']))).toEqual(new Set([event.id]));
    const log = stored.delivery.log;
    expect(afterAttempt.map((x) => x.delivery.state)).toEqual(['pending', 'pending', 'delivered']);
    for (const n of [1, 2]) {
      // After failed attempt n: due one backoff after it ended; attempt n + 1 started no earlier.
      const due = afterAttempt[n - 1]!.delivery.nextAttemptAt;
      expect(due).toBe(log[n - 1]!.at + log[n - 1]!.durationMs + FAST.backoffMs[n - 1]!);
      expect(log[n]!.at).toBeGreaterThanOrEqual(due);
      // The receiver saw the same spacing (lower bound: the backoff was waited).
      expect(posts[n]!.receivedAt - posts[n - 1]!.receivedAt).toBeGreaterThanOrEqual(FAST.backoffMs[n - 1]! - 5);
    }
    posts.forEach((post, i) => {
      // Each attempt is signed at its own time (after the previous one was due, before it was sent),
      // and each signature verifies.
      const signedS = Number(post.headers['webhook-timestamp']);
      const notBefore = i === 0 ? startedAt : afterAttempt[i - 1]!.delivery.nextAttemptAt;
      expect(signedS).toBeGreaterThanOrEqual(Math.floor(notBefore / 1000));
      expect(signedS).toBeLessThanOrEqual(Math.floor(log[i]!.at / 1000));
      expect(verify(post)).toEqual(event.payload);
    });
    // Delivered: nothing is due any more, and nothing more arrives.
    expect(await d.deliverDue()).toBe(0);
    await sleep(FAST.backoffMs[1]! + 100);
    expect(r.posts()).toHaveLength(3);
  });

  test('timestamps differ between attempts one backoff (> 1 s) apart', async () => {
    const r = await receiver({ answer: failFirst(1) });
    const db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    dispatcher(db, { schedule: { attempts: 2, attemptTimeoutMs: FAST.attemptTimeoutMs, backoffMs: [1_100] } }).start();
    const posts = await r.waitForPosts(2, 5_000);
    await waitForRecord(db, event.id, (x) => x.delivery.state === 'delivered');
    expect(Number(posts[1]!.headers['webhook-timestamp'])).toBeGreaterThan(
      Number(posts[0]!.headers['webhook-timestamp']),
    );
    expect(posts[1]!.headers['webhook-id']).toBe(posts[0]!.headers['webhook-id']);
  });

  test('a receiver that never answers in time: every attempt is aborted at the limit, then failed with the log', async () => {
    // The receiver would answer 200 after an hour: the event can only conclude, as failed, if
    // each attempt is aborted by its time limit.
    const r = await receiver({ answer: () => ({ status: 200, delayMs: 3_600_000 }) });
    const db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    const schedule: RetrySchedule = { attempts: 3, attemptTimeoutMs: 300, backoffMs: [50, 50] };
    dispatcher(db, { schedule }).start();
    const stored = await waitForRecord(db, event.id, (x) => x.delivery.state !== 'pending');
    expect(stored.delivery.state).toBe('failed');
    expect(stored.delivery.attempts).toBe(3);
    expect(stored.delivery.log).toHaveLength(3);
    stored.delivery.log.forEach((entry, i) => {
      expect(entry.attempt).toBe(i + 1);
      expect(entry.error).toBe('no answer within 300 ms');
      expect(entry.status).toBeUndefined();
      // Not aborted before the limit (Date.now may step a few ms against the timer's clock).
      expect(entry.durationMs).toBeGreaterThanOrEqual(schedule.attemptTimeoutMs - 10);
      // The next attempt waited the limit plus the backoff: 3 x 300 ms + 2 x 50 ms at least, in order.
      const before = stored.delivery.log[i - 1];
      if (before) expect(entry.at).toBeGreaterThanOrEqual(before.at + before.durationMs + schedule.backoffMs[i - 1]!);
    });
    expect(r.posts()).toHaveLength(3);
  });

  test('the real 10 s limit aborts an attempt held for 12 s', { timeout: patient(20_000) }, async () => {
    const r = await receiver({ answer: () => ({ status: 200, delayMs: 12_000 }) });
    const db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    // One attempt only, so this test costs 10 s and not the 75 s of the whole default schedule.
    dispatcher(db, { schedule: { ...DEFAULT_RETRY_SCHEDULE, attempts: 1 } }).start();
    const stored = await waitForRecord(db, event.id, (x) => x.delivery.state !== 'pending', 15_000);
    expect(stored.delivery.state).toBe('failed');
    const [entry] = stored.delivery.log;
    // Aborted by the limit (the receiver's 200 after 12 s would have delivered it), not before it.
    expect(entry?.error).toBe('no answer within 10000 ms');
    expect(entry?.status).toBeUndefined();
    expect(entry?.durationMs).toBeGreaterThanOrEqual(9_990);
    expect(r.posts()).toHaveLength(1);
  });

  test('a restart between attempts loses nothing: the stored next attempt is sent by the new dispatcher, same id', async () => {
    const r = await receiver({ answer: failFirst(1) });
    let db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    const first = dispatcher(db);
    expect(await first.deliverDue()).toBe(1);
    await first.stop();
    const waiting = await readEvent(db, event.id);
    expect(waiting?.delivery).toMatchObject({ state: 'pending', attempts: 1 });
    const dueAt = waiting!.delivery.nextAttemptAt;
    // "Reload": a new connection and a new dispatcher; nothing is kept in memory.
    db = await reopenTestOutbox(db);
    cleanups.push(() => db.close());
    dispatcher(db).start();
    const posts = await r.waitForPosts(2, 5_000);
    expect(posts[1]!.receivedAtEpochMs).toBeGreaterThanOrEqual(dueAt - 5);
    expect(posts[1]!.headers['webhook-id']).toBe(event.id);
    const stored = await waitForRecord(db, event.id, (x) => x.delivery.state === 'delivered');
    expect(stored.delivery.log.map((e) => e.status)).toEqual([500, 200]);
    // Another restart after the acknowledgement sends nothing.
    db = await reopenTestOutbox(db);
    expect(await dispatcher(db).deliverDue()).toBe(0);
    expect(r.posts()).toHaveLength(2);
  });

  test('a dispatcher stopped mid-attempt (page closed): the attempt counts and the next is due after limit + backoff', async () => {
    const r = await receiver({ answer: (n) => ({ status: 200, delayMs: n === 1 ? 2_000 : 0 }) });
    const db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    const first = dispatcher(db);
    const beforeClaim = Date.now();
    const inFlight = first.deliverDue();
    await r.waitForPosts(1, 2_000);
    const afterClaim = Date.now();
    await first.stop();
    await inFlight;
    const claimed = await readEvent(db, event.id);
    expect(claimed?.delivery).toMatchObject({ state: 'pending', attempts: 1, log: [] });
    // Claimed between beforeClaim and the POST's arrival; due the limit plus the first backoff after that.
    const wait = FAST.attemptTimeoutMs + FAST.backoffMs[0]!;
    expect(claimed!.delivery.nextAttemptAt).toBeGreaterThanOrEqual(beforeClaim + wait);
    expect(claimed!.delivery.nextAttemptAt).toBeLessThanOrEqual(afterClaim + wait);
    dispatcher(db).start();
    const stored = await waitForRecord(db, event.id, (x) => x.delivery.state === 'delivered');
    expect(stored.delivery.log).toEqual([
      expect.objectContaining({ attempt: 1, error: expect.stringMatching(/never reported back/) }),
      expect.objectContaining({ attempt: 2, status: 200 }),
    ]);
    expect(stored.delivery.log[1]!.at).toBeGreaterThanOrEqual(claimed!.delivery.nextAttemptAt);
    expect(r.posts().map((p) => p.headers['webhook-id'])).toEqual([event.id, event.id]);
  });

  test('two dispatchers on one outbox (no lock) send each attempt once', async () => {
    const r = await receiver({ answer: () => ({ status: 200, delayMs: 50 }) });
    const db = await openTestOutbox();
    const events = await Promise.all([1, 2, 3].map(() => record(db, completeEvent(r.url))));
    const sent = await Promise.all([dispatcher(db).deliverDue(), dispatcher(db).deliverDue()]);
    expect(sent[0] + sent[1]).toBe(3);
    expect(
      r
        .posts()
        .map((p) => p.headers['webhook-id'])
        .sort(),
    ).toEqual(events.map((e) => e.id).sort());
  });

  test('no callbackUrl: never sent; a rotation signs with both secrets', async () => {
    const r = await receiver();
    const db = await openTestOutbox();
    const skipped = await record(db, completeEvent(null));
    const sent = await record(db, completeEvent(r.url));
    const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
    expect(await dispatcher(db, { signingSecrets: async () => [oldSecret, newSecret] }).deliverDue()).toBe(1);
    expect((await readEvent(db, skipped.id))?.delivery).toMatchObject({ state: 'skipped', attempts: 0, log: [] });
    const [post] = r.posts();
    expect(post?.headers['webhook-id']).toBe(sent.id);
    expect(String(post?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(post!, oldSecret)).toEqual(sent.payload);
    expect(verify(post!, newSecret)).toEqual(sent.payload);
  });

  test('a cross-origin network failure is diagnosed with the CORS consent the receiver must give', async () => {
    const r = await receiver();
    const down = await startWebhookReceiver();
    await down.close(); // a port nobody listens on any more
    const db = await openTestOutbox();
    const unreachable = await record(db, completeEvent(down.url));
    const blocked = await record(db, completeEvent(r.url));
    // Test double of a browser's CORS check: POSTs to the receiver throw TypeError as Chromium does; HEAD probes pass.
    const corsBlockingFetch: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && (input instanceof Request ? input.url : input.toString()).startsWith(r.origin))
        throw new TypeError('Failed to fetch');
      return fetch(input, init);
    };
    await dispatcher(db, {
      origin: 'http://app.test',
      fetch: corsBlockingFetch,
      schedule: { ...FAST, attempts: 1 },
    }).deliverDue();
    const a = await readEvent(db, unreachable.id);
    expect(a?.delivery.state).toBe('failed');
    expect(a?.delivery.log[0]?.error).toMatch(
      new RegExp(`^blocked by CORS or network: the receiver at ${down.origin} must allow`),
    );
    expect(a?.delivery.log[0]?.error).toContain('Access-Control-Allow-Origin: http://app.test');
    const b = await readEvent(db, blocked.id);
    expect(b?.delivery.log[0]?.error).toMatch(/^blocked by CORS: the host is up/);
    expect(b?.delivery.log[0]?.error).toContain(
      'Access-Control-Allow-Headers: content-type, webhook-id, webhook-timestamp, webhook-signature',
    );
    expect(r.requests.map((x) => x.method)).toEqual(['HEAD']);
  });

  test('signing secrets that cannot be read: nothing is sent unsigned, the attempt fails and the log says why', async () => {
    const r = await receiver();
    const db = await openTestOutbox();
    const event = await record(db, completeEvent(r.url));
    await dispatcher(db, {
      signingSecrets: async () => {
        throw new Error('account acc_test not found');
      },
    }).deliverDue();
    expect(r.posts()).toHaveLength(0);
    const stored = await readEvent(db, event.id);
    expect(stored?.delivery.state).toBe('pending');
    expect(stored?.delivery.log[0]?.error).toMatch(
      /not sent: it could not be signed, because the signing secrets of account acc_test could not be read/,
    );
  });
});
