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
    pollIntervalMs: 60_000,
  });
  // Another connection records the event (as the service's transaction would) and announces it.
  const writer = await openDatabase('multicam-delivery-test', factory);
  const event = completeEvent(receiver.url);
  await writer.add('events', event);
  const t0 = performance.now();
  announceEvents([event.id]);
  const [post] = await receiver.waitForPosts(1, 3_000);
  expect(performance.now() - t0).toBeLessThan(1_000);
  expect(new Webhook(secret).verify(post!.body, post!.headers as Record<string, string>)).toEqual(event.payload);
  await expect.poll(async () => (await readEvent(writer, event.id))?.delivery.state).toBe('delivered');
  writer.close();
});
