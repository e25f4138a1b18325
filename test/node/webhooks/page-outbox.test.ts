/**
 * The page's view of the events outbox (src/webhooks/page-outbox.ts): what the demo's events
 * table reads, and its subscription, on the page's own connection to the app's database.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { expect, test } from 'vitest';
import { openDatabase } from '../../../src/store/db.ts';
import { openEventsOutbox } from '../../../src/webhooks/page-outbox.ts';
import { completeEvent } from './outbox-fixture.ts';

test('lists every event oldest first with its delivery state, one account when asked, and subscribes on the same outbox', async () => {
  const factory = new IDBFactory();
  const dbName = 'multicam-page-outbox-test';
  const writer = await openDatabase(dbName, factory);
  const t = Date.now();
  const mine = [completeEvent('http://127.0.0.1:9/x', { createdAt: t + 2 }), completeEvent(null, { createdAt: t + 1 })];
  const theirs = completeEvent(null, { createdAt: t, accountId: 'acc_other' });
  for (const event of [...mine, theirs]) await writer.put('events', event);
  writer.close();

  const outbox = await openEventsOutbox({ dbName, indexedDB: factory });
  expect((await outbox.read()).map((e) => e.id)).toEqual([theirs.id, mine[1]!.id, mine[0]!.id]);
  const read = await outbox.read('acc_test');
  expect(read.map((e) => [e.id, e.delivery.state])).toEqual([
    [mine[1]!.id, 'skipped'],
    [mine[0]!.id, 'pending'],
  ]);

  const seen: string[] = [];
  const subscription = outbox.subscribe((event) => void seen.push(event.id), {
    name: 'demo-page',
    accountId: 'acc_test',
    locks: null,
    pollIntervalMs: 0,
  });
  await subscription.ready;
  expect(seen).toEqual([mine[1]!.id, mine[0]!.id]);
  // Handled for that name, in the outbox the page reads.
  expect((await outbox.read('acc_test')).map((e) => e.delivery.seenBy)).toEqual([['demo-page'], ['demo-page']]);
  await subscription.close();
  outbox.close();
});
