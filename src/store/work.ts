/**
 * The `work` store: engine work queued by the service worker for the page that runs the
 * pipeline. One short transaction per call (nothing else is awaited inside).
 *
 * @module
 */
import type { EngineWork } from '../contract/engine.ts';
import type { Database } from './db.ts';

/** Queues one unit of work, unless the same job and stage is already queued. */
export async function addWork(db: Database, work: EngineWork, now: number): Promise<void> {
  const tx = db.transaction('work', 'readwrite');
  const queued = await tx.store.index('by-job').getAll(work.jobId);
  if (!queued.some((item) => item.stage === work.stage))
    await tx.store.add({ jobId: work.jobId, stage: work.stage, createdAt: now });
  await tx.done;
}

/** Drops every queued item of a job (deleteJob). */
export async function dropWork(db: Database, jobId: string): Promise<number> {
  const tx = db.transaction('work', 'readwrite');
  const keys = await tx.store.index('by-job').getAllKeys(jobId);
  await Promise.all(keys.map((key) => tx.store.delete(key)));
  await tx.done;
  return keys.length;
}

/** Removes and returns every queued item, oldest first: the consumer now owns them. */
export async function takeWork(db: Database): Promise<EngineWork[]> {
  const tx = db.transaction('work', 'readwrite');
  const items = await tx.store.getAll();
  await tx.store.clear();
  await tx.done;
  return items.map(({ jobId, stage }) => ({ jobId, stage }));
}

/** A queued item with its record key (the keys rise with the order items were queued). */
export interface QueuedWork {
  key: number;
  work: EngineWork;
}

/** Every queued item, oldest first, left in the store (the runner removes an item once its stage is done). */
export async function listWork(db: Database): Promise<QueuedWork[]> {
  const tx = db.transaction('work');
  const [records, keys] = await Promise.all([tx.store.getAll(), tx.store.getAllKeys(), tx.done]);
  return records.map(({ jobId, stage }, i) => ({ key: keys[i]!, work: { jobId, stage } }));
}

/** Removes the queued items with these record keys (finished or stale work). */
export async function deleteWork(db: Database, keys: readonly number[]): Promise<void> {
  const tx = db.transaction('work', 'readwrite');
  await Promise.all([...keys.map((key) => tx.store.delete(key)), tx.done]);
}
