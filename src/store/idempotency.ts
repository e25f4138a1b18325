/**
 * Repository of the `idempotency` store: createJob's `Idempotency-Key`s per account. A key is
 * claimed in one transaction before the job is created, so two concurrent requests with one
 * key create one job; the job and the key's `done` record are then written in one transaction
 * ({@link "./jobs.ts".insertJob}), so a crash between them cannot leave a job whose key a retry
 * would claim again.
 *
 * @module
 */
import { LIMITS } from '../contract/types.ts';
import type { Database } from './db.ts';

/** A claim left `in_progress` longer than this is treated as abandoned (the request died). */
export const STALE_CLAIM_MS = 60_000;

/** What claiming a key found: claimed now, claimed by a running request, used with another body, or done. */
export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'in_progress'; retryAfterSec: number }
  | { kind: 'mismatch' }
  | { kind: 'done'; jobId: string };

/** Claims `key` for a request whose canonical body hashes to `bodyHash`, or reports how it is used. */
export async function claimIdempotencyKey(
  db: Database,
  accountId: string,
  key: string,
  bodyHash: string,
  now: number,
): Promise<ClaimResult> {
  const tx = db.transaction('idempotency', 'readwrite');
  const existing = await tx.store.get([accountId, key]);
  const expired = existing !== undefined && now - existing.createdAt >= LIMITS.idempotencyKeyTtlMs;
  const abandoned =
    existing !== undefined && existing.state === 'in_progress' && now - existing.createdAt >= STALE_CLAIM_MS;
  let result: ClaimResult;
  if (existing && !expired && !abandoned) {
    if (existing.bodyHash !== bodyHash) result = { kind: 'mismatch' };
    else if (existing.state === 'in_progress' || existing.jobId === null)
      result = { kind: 'in_progress', retryAfterSec: 1 };
    else result = { kind: 'done', jobId: existing.jobId };
  } else {
    await tx.store.put({ accountId, key, bodyHash, state: 'in_progress', jobId: null, createdAt: now });
    result = { kind: 'claimed' };
  }
  await tx.done;
  return result;
}

/** Gives a claimed key back (the request was refused before a job existed). */
export async function releaseIdempotencyKey(db: Database, accountId: string, key: string): Promise<void> {
  const tx = db.transaction('idempotency', 'readwrite');
  const existing = await tx.store.get([accountId, key]);
  if (existing && existing.state === 'in_progress') await tx.store.delete([accountId, key]);
  await tx.done;
}
