/**
 * End to end in Node: real job transitions of the service (createService over
 * fake-indexeddb, driven by the test engine) record events; the dispatcher delivers them to a
 * real receiver, signed with the account's secrets, and the official verifier accepts them.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WebhookDispatcher } from '../../../src/webhooks/dispatcher.ts';
import { readAllEvents } from '../../../src/webhooks/outbox.ts';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';

let h: NodeHarness;
let receiver: WebhookReceiver;
let dispatcher: WebhookDispatcher;
let apiKey: string;
let accountId: string;

beforeEach(async () => {
  // The service's clock starts at the real time, so the events it records are due now.
  h = await createNodeHarness({ startMs: Date.now() });
  receiver = await startWebhookReceiver();
  ({ apiKey, accountId } = await h.createAccount());
  dispatcher = new WebhookDispatcher({
    db: h.db,
    signingSecrets: (id) => h.service.accounts.signingSecrets(id),
    locks: null,
    listen: false,
    schedule: { attempts: 3, attemptTimeoutMs: 1_000, backoffMs: [100, 100] },
  });
});
afterEach(async () => {
  await dispatcher.stop();
  await receiver.close();
  await h.dispose();
});

async function call(
  method: string,
  rest: string,
  json?: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const r = await h.request(h.baseUrl + rest, {
    method,
    headers: { authorization: `Bearer ${apiKey}` },
    ...(json === undefined ? {} : { json }),
  });
  return { status: r.status, json: r.json, text: r.text };
}

/** A job with two uploaded videos, through syncing and diarizing: with autoMap off it stops in mapping. */
async function jobInMapping(callbackUrl?: string): Promise<{ jobId: string; a: string; b: string }> {
  const created = await call('POST', '/jobs', {
    sources: [{ label: 'Cam A' }, { label: 'Cam B' }],
    autoMap: 'off',
    ...(callbackUrl ? { callbackUrl } : {}),
  });
  expect(created.status, created.text).toBe(200);
  for (const info of Object.values<{ url: string }>(created.json.uploads)) {
    expect((await h.request(info.url, { method: 'PUT', body: 'bytes of a source file' })).status).toBe(200);
  }
  const jobId: string = created.json.jobId;
  expect((await call('POST', `/jobs/${jobId}/process`)).status).toBe(200);
  const [a, b] = Object.keys(created.json.uploads) as [string, string];
  await h.completeStage(jobId, 'syncing', { durationsMs: { [a]: 60_000, [b]: 60_000 } });
  await h.completeStage(jobId, 'diarizing');
  return { jobId, a, b };
}

test('a mapping event from a real transition is delivered, signed with the account secret', async () => {
  const { jobId } = await jobInMapping(receiver.url);
  expect(await dispatcher.deliverDue()).toBe(1);
  const [post] = receiver.posts();
  const [secret] = await h.service.accounts.signingSecrets(accountId);
  const body = new Webhook(secret!).verify(post!.body, post!.headers as Record<string, string>) as Record<
    string,
    unknown
  >;
  expect(body).toMatchObject({ jobId, status: 'mapping', reviewUrl: expect.any(String), speakers: expect.any(Array) });
  const [event] = await h.events(jobId);
  expect(post!.headers['webhook-id']).toBe(event!.id);
  expect(body).toEqual(event!.payload);
});

test('after a secret rotation the next event carries two signatures; each secret verifies alone', async () => {
  const { jobId, a, b } = await jobInMapping(receiver.url);
  await dispatcher.deliverDue();
  const [oldSecret] = await h.service.accounts.signingSecrets(accountId);
  const newSecret = await h.service.accounts.rotateSigningSecret(accountId);
  const mapped = await call('POST', `/jobs/${jobId}/tracks`, {
    tracks: [
      { sourceId: a, speakers: ['SPEAKER_00'] },
      { sourceId: b, speakers: ['SPEAKER_01'] },
    ],
  });
  expect(mapped.status, mapped.text).toBe(200);
  expect(await dispatcher.deliverDue()).toBe(1);
  const ready = receiver.posts()[1]!;
  expect(String(ready.headers['webhook-signature']).split(' ')).toHaveLength(2);
  for (const secret of [oldSecret!, newSecret]) {
    expect(new Webhook(secret).verify(ready.body, ready.headers as Record<string, string>)).toMatchObject({
      jobId,
      status: 'ready',
    });
  }
});

test('a job without callbackUrl records its events as skipped and nothing is sent', async () => {
  const { jobId } = await jobInMapping();
  expect(await dispatcher.deliverDue()).toBe(0);
  expect(receiver.requests).toHaveLength(0);
  const events = (await readAllEvents(h.db)).filter((e) => e.jobId === jobId);
  expect(events.map((e) => [e.type, e.delivery.state])).toEqual([['mapping', 'skipped']]);
});
