/**
 * Outbox fixtures for the webhook tests: a fresh fake-indexeddb database with an `events`
 * store shaped like the app's, and event records as the stage reporter writes them.
 *
 * @module
 */
// idb's wrap() checks instanceof IDBRequest etc., so the fake classes must be globals too.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { openDatabase } from '../../../src/store/db.ts';
import type { OutboxDatabase, OutboxEvent } from '../../../src/webhooks/outbox.ts';

const factories = new WeakMap<OutboxDatabase, IDBFactory>();

/** Opens the app's database (src/store/db.ts, real schema and migrations) in a fresh fake-indexeddb. */
export async function openTestOutbox(): Promise<OutboxDatabase> {
  const factory = new IDBFactory();
  const db = await openDatabase('multicam-webhooks-test', factory);
  factories.set(db, factory);
  return db;
}

/** Closes the connection and opens the same database again (what a reload does). */
export async function reopenTestOutbox(db: OutboxDatabase): Promise<OutboxDatabase> {
  const factory = factories.get(db);
  if (!factory) throw new Error('reopenTestOutbox: not a database from openTestOutbox');
  db.close();
  const reopened = await openDatabase(db.name, factory);
  factories.set(reopened, factory);
  return reopened;
}

/** A `complete` event as recorded with the transition, pending delivery to `callbackUrl`. */
export function completeEvent(callbackUrl: string | null, overrides: Partial<OutboxEvent> = {}): OutboxEvent {
  const jobId = crypto.randomUUID();
  const createdAt = overrides.createdAt ?? Date.now();
  return {
    id: `msg_${crypto.randomUUID()}`,
    accountId: 'acc_test',
    jobId,
    type: 'complete',
    payload: {
      jobId,
      status: 'complete',
      outputUrl: `http://127.0.0.1/api/signed/files/${jobId}/output.mp4?exp=1&sig=x`,
    },
    callbackUrl,
    createdAt,
    seq: 1,
    delivery: {
      state: callbackUrl === null ? 'skipped' : 'pending',
      attempts: 0,
      nextAttemptAt: createdAt,
      log: [],
    },
    ...overrides,
  };
}

/** A fresh `whsec_` secret (24 random bytes, as the reference libraries generate). */
export function newSigningSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${Buffer.from(bytes).toString('base64')}`;
}
