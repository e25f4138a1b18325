/**
 * The service worker's Engine. The worker cannot run the pipeline (no VideoDecoder, no
 * nested workers), so `enqueue` writes the work to the IndexedDB `work` store and posts on
 * `BroadcastChannel('multicam-engine')`; the page that holds the engine Web Lock takes the
 * work with {@link takeQueuedWork} and reports back through the stage reporter. The store
 * is the source of truth: a page that opens later drains what was queued while none ran.
 *
 * @module
 */
import { DB_NAME, openDatabase, type Database } from '../store/db.ts';
import { addWork, dropWork, takeWork } from '../store/work.ts';
import type { Engine, EngineWork } from '../contract/engine.ts';

/** The channel name shared by the queue engine and the page running the pipeline. */
export const ENGINE_CHANNEL = 'multicam-engine';
/** The Web Lock the page running the pipeline holds, so exactly one page consumes the queue. */
export const ENGINE_LOCK = 'multicam-engine';

/** Messages on {@link ENGINE_CHANNEL}. `dbName` lets several databases share one origin. */
export type EngineMessage =
  { type: 'work'; dbName: string; work: EngineWork } | { type: 'cancel'; dbName: string; jobId: string };

/** Options of {@link createQueueEngine}. */
export interface QueueEngineOptions {
  /** IndexedDB database name; default the store's `DB_NAME`. */
  dbName?: string;
  /** IndexedDB factory; default the global `indexedDB`. */
  indexedDB?: IDBFactory;
  now?: () => number;
}

/** An Engine that queues work for another context; `close()` releases the channel and database. */
export interface QueueEngine extends Engine {
  close(): void;
}

/** Creates the queue engine. The database opens on first use. */
export function createQueueEngine(options: QueueEngineOptions = {}): QueueEngine {
  const dbName = options.dbName ?? DB_NAME;
  const now = options.now ?? Date.now;
  let db: Promise<Database> | undefined;
  let channel: BroadcastChannel | undefined;
  const database = (): Promise<Database> => (db ??= openDatabase(dbName, options.indexedDB ?? indexedDB));
  const post = (message: EngineMessage): void => {
    channel ??= new BroadcastChannel(ENGINE_CHANNEL);
    channel.postMessage(message);
  };
  return {
    async enqueue(work) {
      await addWork(await database(), { jobId: work.jobId, stage: work.stage }, now());
      post({ type: 'work', dbName, work: { jobId: work.jobId, stage: work.stage } });
    },
    async cancel(jobId) {
      await dropWork(await database(), jobId);
      // A stage already taken by the page is running there: tell it to stop.
      post({ type: 'cancel', dbName, jobId });
    },
    close() {
      channel?.close();
      channel = undefined;
      void db?.then((opened) => opened.close());
      db = undefined;
    },
  };
}

/**
 * The consumer side: removes and returns the queued work of `db`, oldest first. Called by
 * the page holding {@link ENGINE_LOCK} when it starts and on every `work` message.
 */
export function takeQueuedWork(db: Database): Promise<EngineWork[]> {
  return takeWork(db);
}
