/**
 * One call that opens the app's database and starts webhook delivery in this context: what
 * a page that embeds multicam (or the demo) calls next to `startMulticam`.
 *
 * @module
 */
import { DB_NAME, openDatabase } from '../store/db.ts';
import { WebhookDispatcher, type WebhookDispatcherOptions } from './dispatcher.ts';

/** Options of {@link startWebhookDelivery}: the dispatcher's, with the database named instead of given. */
export type WebhookDeliveryOptions = Omit<WebhookDispatcherOptions, 'db'> & {
  /** IndexedDB database name; default the store's (`multicam`). */
  dbName?: string;
  /** IndexedDB factory; default the global `indexedDB`. */
  indexedDB?: IDBFactory;
};

/** Running webhook delivery. */
export interface WebhookDelivery {
  readonly dispatcher: WebhookDispatcher;
  /** Stops the dispatcher and closes its database connection. */
  close(): Promise<void>;
}

/**
 * Opens the database and starts a {@link WebhookDispatcher} on it. Tabs take turns through
 * the `multicam-webhooks` Web Lock, so every tab may call this.
 *
 * @example
 * const multicam = await startMulticam({ basePath: '/api' });
 * const webhooks = await startWebhookDelivery({ signingSecrets: (id) => multicam.accounts.signingSecrets(id) });
 * addEventListener('pagehide', () => void webhooks.close());
 */
export async function startWebhookDelivery(options: WebhookDeliveryOptions): Promise<WebhookDelivery> {
  const { dbName = DB_NAME, indexedDB: factory, ...dispatcherOptions } = options;
  const db = await openDatabase(dbName, factory);
  const dispatcher = new WebhookDispatcher({ ...dispatcherOptions, db });
  dispatcher.start();
  return {
    dispatcher,
    async close() {
      await dispatcher.stop();
      db.close();
    },
  };
}
