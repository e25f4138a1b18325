import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '../../../src/store/db.ts';
import { announceEvents } from '../../../src/webhooks/events-channel.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../../../src/webhooks/delivery.ts';
import { readEvent } from '../../../src/webhooks/outbox.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { completeEvent, newSigningSecret } from './outbox-fixture.ts';

const DAY_MS = 86_400_000;

let delivery: WebhookDelivery | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await delivery?.close();
  await receiver?.close();
});

test('startWebhookDelivery opens the named database and wakes on the multicam-events channel, not the poll', async () => {
  receiver = await startWebhookReceiver();
  const factory = new IDBFactory();
  const secret = newSigningSecret();
  delivery = await startWebhookDelivery({
    dbName: 'multicam-delivery-test',
    indexedDB: factory,
    signingSecrets: async () => [secret],
    locks: null,
    // A day: only the nudge can wake the dispatcher within this test's time.
    pollIntervalMs: DAY_MS,
  });
  const writer = await openDatabase('multicam-delivery-test', factory);
  // Its first pass is over (the outbox was empty) and its scan for the next due time, started in
  // the same turn, is queued before the write below: so it sleeps for the poll interval.
  expect(await delivery.dispatcher.deliverDue()).toBe(0);
  await new Promise((ok) => setImmediate(ok));
  // Another connection records the event (as the service's transaction would) and announces it.
  const event = completeEvent(receiver.url);
  await writer.add('events', event);
  announceEvents([event.id]);
  const [post] = await receiver.waitForPosts(1, 3_000);
  expect(new Webhook(secret).verify(post!.body, post!.headers as Record<string, string>)).toEqual(event.payload);
  await expect.poll(async () => (await readEvent(writer, event.id))?.delivery.state).toBe('delivered');
  writer.close();
});
