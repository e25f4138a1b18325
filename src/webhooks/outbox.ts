/**
 * The events outbox as the webhook dispatcher and the in-page subscribers see it: the
 * `events` store of the app's IndexedDB database (see docs/architecture.md, "Events
 * outbox"). Records are written by the stage reporter in the same transaction as each
 * transition; this module only reads them and updates their `delivery` field, each update
 * in its own short read-write transaction so that concurrent tabs never lose a write.
 *
 * @module
 */
import type { Database, EventRecord } from '../store/db.ts';

/** The name of the object store that holds the outbox. */
export const EVENTS_STORE = 'events';

/** Delivery bookkeeping plus the in-page subscribers that have handled the event. */
export type OutboxDelivery = EventRecord['delivery'] & {
  /** Names of in-page subscribers (`subscribeToEvents`) that have handled this event. */
  seenBy?: string[];
};

/** An event of the outbox (`EventRecord` of src/store/db.ts), as the dispatcher reads it. */
export type OutboxEvent = Omit<EventRecord, 'delivery'> & { delivery: OutboxDelivery };

/** The app's database (src/store/db.ts); only its `events` store is used here. */
export type OutboxDatabase = Database;

/**
 * Reads every event of the store, oldest first. The store is small (a handful of events
 * per job), so a scan is cheap; an index on `delivery.state` can replace it later without
 * changing callers.
 */
export async function readAllEvents(db: OutboxDatabase): Promise<OutboxEvent[]> {
  const all: OutboxEvent[] = await db.getAll(EVENTS_STORE);
  // Events of one job recorded in the same millisecond are ordered by their per-job `seq`.
  return all.sort(
    (a, b) =>
      a.createdAt - b.createdAt ||
      (a.jobId === b.jobId ? a.seq - b.seq : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** Reads one event, or undefined. */
export async function readEvent(db: OutboxDatabase, id: string): Promise<OutboxEvent | undefined> {
  return db.get(EVENTS_STORE, id);
}

/**
 * Read-modify-write of one event in a single read-write transaction: `change` sees the
 * stored record and returns the new one, or null to leave it alone. Read-write transactions
 * on one store run one after the other, so two tabs cannot both claim the same attempt.
 * `change` must be synchronous (awaiting other work would commit the transaction).
 *
 * @returns the record as written, or null when nothing was written.
 */
export async function updateEvent(
  db: OutboxDatabase,
  id: string,
  change: (record: OutboxEvent) => OutboxEvent | null,
): Promise<OutboxEvent | null> {
  const tx = db.transaction(EVENTS_STORE, 'readwrite');
  const record = await tx.store.get(id);
  const next = record === undefined ? null : change(record);
  if (next !== null) await tx.store.put(next);
  await tx.done;
  return next;
}
