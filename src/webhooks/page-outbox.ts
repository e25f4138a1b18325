/**
 * The events outbox as a page reads it: one call opens the app's database for the page (as
 * `startWebhookDelivery` does for delivery), then lists the events with their delivery
 * state or subscribes to them. Pages never open the store themselves (the fence in
 * scripts/check-layers.mjs); the demo's events table reads through this.
 *
 * @module
 */
import { DB_NAME, openDatabase } from '../store/db.ts';
import { readAllEvents, type OutboxEvent } from './outbox.ts';
import { subscribeToEvents, type EventSubscription, type SubscribeOptions, type SubscribedEvent } from './subscribe.ts';

/** Options of {@link openEventsOutbox}. */
export interface EventsOutboxOptions {
  /** IndexedDB database name; default the store's (`multicam`), as `startMulticam`'s `dbName`. */
  dbName?: string;
  /** IndexedDB factory; default the global `indexedDB`. */
  indexedDB?: IDBFactory;
}

/** The outbox open in this page. */
export interface EventsOutbox {
  /** Every event, oldest first, with its webhook delivery state; only `accountId`'s when given. */
  read(accountId?: string): Promise<OutboxEvent[]>;
  /** {@link subscribeToEvents} on this outbox: each event handed once per subscriber name. */
  subscribe(
    handler: (event: SubscribedEvent) => void | Promise<void>,
    options?: Omit<SubscribeOptions, 'db'>,
  ): EventSubscription;
  /** Closes the page's database connection (close its subscriptions first). */
  close(): void;
}

/**
 * Opens the events outbox for this page.
 *
 * @example
 * const outbox = await openEventsOutbox();
 * const subscription = outbox.subscribe(async (event) => {
 *   if (event.type === 'complete') showDownload(event.payload['outputUrl'] as string);
 * }, { name: 'editor', accountId });
 * showDeliveries(await outbox.read(accountId));
 */
export async function openEventsOutbox(options: EventsOutboxOptions = {}): Promise<EventsOutbox> {
  const db = await openDatabase(options.dbName ?? DB_NAME, options.indexedDB ?? indexedDB);
  return {
    async read(accountId) {
      const events = await readAllEvents(db);
      return accountId === undefined ? events : events.filter((event) => event.accountId === accountId);
    },
    subscribe: (handler, subscribeOptions = {}) => subscribeToEvents(handler, { ...subscribeOptions, db }),
    close: () => db.close(),
  };
}
