/**
 * Repository of the `meta` store: installation-wide values (URL signing secret, counters).
 *
 * @module
 */
import type { Database } from './db.ts';

/** The value under `key`, created with `make()` in one transaction when absent. */
export async function getOrCreateMeta<T>(db: Database, key: string, make: () => T): Promise<T> {
  const tx = db.transaction('meta', 'readwrite');
  const existing = await tx.store.get(key);
  if (existing) {
    await tx.done;
    return existing.value as T;
  }
  const value = make();
  await tx.store.put({ key, value });
  await tx.done;
  return value;
}
