/**
 * Shared pieces of the reliability suite: a seeded generator, a dump of every IndexedDB
 * store (to prove "unchanged means unchanged"), the Error-shape check, and the tally the
 * summary line prints.
 *
 * @module
 */
import { expect } from 'vitest';
import type { Database } from '../../src/store/db.ts';

/** Every object store of the schema (src/store/db.ts). */
export const STORES = [
  'meta',
  'accounts',
  'apiKeys',
  'jobs',
  'files',
  'chunks',
  'uploads',
  'parts',
  'idempotency',
  'events',
  'work',
  'runs',
] as const;

export { seededRandom } from '../../src/analysis/signal/random.ts';

/** Picks one element with the generator. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Blobs and typed arrays stringify to `{}`; spell out their size and bytes so a change shows. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return `bytes:${value.byteLength}:${Buffer.from(value).toString('base64')}`;
  if (value instanceof ArrayBuffer) return `buffer:${value.byteLength}:${Buffer.from(value).toString('base64')}`;
  if (typeof Blob !== 'undefined' && value instanceof Blob) return `blob:${value.size}:${value.type}`;
  return value;
}

/** Every record of every store, as JSON text per store. */
export async function dumpDatabase(db: Database): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const store of STORES) out[store] = JSON.stringify(await db.getAll(store), replacer);
  return out;
}

/** Number of records per store. */
export async function countRecords(db: Database): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const store of STORES) out[store] = await db.count(store);
  return out;
}

/** The spec's Error shape: a JSON object whose `error` is a non-empty string. */
export function isErrorShape(json: unknown): boolean {
  return (
    json !== null &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    typeof (json as { error?: unknown }).error === 'string' &&
    (json as { error: string }).error.length > 0
  );
}

/** Counts that end up in the summary line. */
export interface Tally {
  fuzzed: number;
  status4xx: number;
  status5xx: number;
  faults: number;
  jobsLost: number;
}

export function newTally(): Tally {
  return { fuzzed: 0, status4xx: 0, status5xx: 0, faults: 0, jobsLost: 0 };
}

/** The summary line the task asks for. */
export function summaryLine(t: Tally, label: string): string {
  return `[reliability ${label}] requests fuzzed: ${t.fuzzed}, 4xx: ${t.status4xx}, 5xx: ${t.status5xx}, faults injected: ${t.faults}, jobs lost: ${t.jobsLost}`;
}

/** Records one fuzzed response and asserts it is a 4xx with the Error shape. */
export function expectFuzzRejected(t: Tally, status: number, json: unknown, what: string): void {
  t.fuzzed++;
  if (status >= 400 && status < 500) t.status4xx++;
  if (status >= 500) t.status5xx++;
  expect(status, what).toBeGreaterThanOrEqual(400);
  expect(status, what).toBeLessThan(500);
  expect(isErrorShape(json), `${what}: Error shape`).toBe(true);
}
