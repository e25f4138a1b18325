import { afterEach, describe, expect, test } from 'vitest';
import { announceEvents } from '../../../src/webhooks/events-channel.ts';
import { readEvent } from '../../../src/webhooks/outbox.ts';
import { subscribeToEvents, type EventSubscription, type SubscribedEvent } from '../../../src/webhooks/subscribe.ts';
import { completeEvent, openTestOutbox, reopenTestOutbox } from './outbox-fixture.ts';
import { patient } from '../../support/patience.ts';

const open: EventSubscription[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

function subscribe(...args: Parameters<typeof subscribeToEvents>): EventSubscription {
  const s = subscribeToEvents(...args);
  open.push(s);
  return s;
}

describe('in-page event subscription', () => {
  test('replays unhandled events oldest first, hands each to a name once across reloads, then follows new ones', async () => {
    let db = await openTestOutbox();
    const t = Date.now();
    const events = [
      completeEvent(null, { createdAt: t + 2 }),
      completeEvent('http://127.0.0.1:9/x', { createdAt: t + 1 }),
      completeEvent(null, { createdAt: t + 3 }),
    ];
    for (const e of events) await db.put('events', e);
    const seen: SubscribedEvent[] = [];
    const first = subscribe((e) => void seen.push(e), { db, name: 'editor', locks: null, pollIntervalMs: 0 });
    await first.ready;
    expect(seen.map((e) => e.id)).toEqual([events[1]!.id, events[0]!.id, events[2]!.id]);
    expect(seen[0]).toEqual({
      id: events[1]!.id,
      type: 'complete',
      jobId: events[1]!.jobId,
      accountId: 'acc_test',
      payload: events[1]!.payload,
      createdAt: t + 1,
    });
    // Handling is recorded in the outbox; the webhook bookkeeping is untouched.
    expect((await readEvent(db, events[1]!.id))?.delivery).toMatchObject({
      state: 'pending',
      attempts: 0,
      seenBy: ['editor'],
    });
    await first.close();

    // A reload: nothing is replayed to the same name; another name gets everything.
    db = await reopenTestOutbox(db);
    const again: string[] = [];
    const second = subscribe((e) => void again.push(e.id), { db, name: 'editor', locks: null, pollIntervalMs: 0 });
    await second.ready;
    expect(again).toEqual([]);
    const other: string[] = [];
    await subscribe((e) => void other.push(e.id), { db, name: 'analytics', locks: null, pollIntervalMs: 0 }).ready;
    expect(other).toHaveLength(3);

    // A new event: the BroadcastChannel nudge brings it, once.
    const later = completeEvent(null, { createdAt: t + 4 });
    await db.put('events', later);
    announceEvents([later.id]);
    announceEvents([later.id]);
    await expect.poll(() => again, { timeout: patient(2_000) }).toEqual([later.id]);
    await second.refresh();
    expect(again).toEqual([later.id]);
    db.close();
  });

  test('a handler that throws gets the same event again on the next read, and later events wait behind it', async () => {
    const db = await openTestOutbox();
    const t = Date.now();
    const a = completeEvent(null, { createdAt: t });
    const b = completeEvent(null, { createdAt: t + 1 });
    await db.put('events', a);
    await db.put('events', b);
    const calls: string[] = [];
    let failOnce = true;
    const errors: unknown[] = [];
    const s = subscribe(
      (e) => {
        calls.push(e.id);
        if (failOnce) {
          failOnce = false;
          throw new Error('app not ready');
        }
      },
      { db, name: 'app', locks: null, pollIntervalMs: 0, onError: (error) => errors.push(error) },
    );
    await s.ready;
    expect(calls).toEqual([a.id]);
    expect(errors).toHaveLength(1);
    await s.refresh();
    expect(calls).toEqual([a.id, a.id, b.id]);
    db.close();
  });

  test('only the given account', async () => {
    const db = await openTestOutbox();
    await db.put('events', completeEvent(null, { accountId: 'acc_a' }));
    await db.put('events', completeEvent(null, { accountId: 'acc_b' }));
    const got: string[] = [];
    await subscribe((e) => void got.push(e.accountId), { db, accountId: 'acc_b', locks: null, pollIntervalMs: 0 })
      .ready;
    expect(got).toEqual(['acc_b']);
    db.close();
  });
});
