/**
 * Repository of the `accounts` and `apiKeys` stores. API keys are stored as SHA-256 hashes;
 * the plaintext is returned once, at creation.
 *
 * @module
 */
import { randomBytes, sha256Hex, toBase64, toBase64Url } from '../auth/crypto.ts';
import type { AccountRecord, ApiKeyRecord, Database } from './db.ts';

/** The fixed prefix of every API key. */
export const API_KEY_PREFIX = 'mc_live_';
/** How long a rotated-out signing secret stays in force by default. */
export const DEFAULT_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A new `whsec_<base64>` webhook signing secret (24 random bytes). */
export function newSigningSecret(): string {
  return `whsec_${toBase64(randomBytes(24))}`;
}

/** Stores an account record (create or replace). */
export async function putAccount(db: Database, account: AccountRecord): Promise<void> {
  await db.put('accounts', account);
}

/** An account by id. */
export async function getAccount(db: Database, accountId: string): Promise<AccountRecord | undefined> {
  return db.get('accounts', accountId);
}

/** Read-modify-write of one account in one transaction; false when it does not exist. */
export async function updateAccount(
  db: Database,
  accountId: string,
  change: (account: AccountRecord) => void,
): Promise<boolean> {
  const tx = db.transaction('accounts', 'readwrite');
  const account = await tx.store.get(accountId);
  if (!account) {
    await tx.done;
    return false;
  }
  change(account);
  await tx.store.put(account);
  await tx.done;
  return true;
}

/** Creates a key; returns the plaintext (shown once) and the stored record. */
export async function createApiKey(
  db: Database,
  accountId: string,
  now: number,
): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const apiKey = API_KEY_PREFIX + toBase64Url(randomBytes(24));
  const record: ApiKeyRecord = {
    keyId: `key_${crypto.randomUUID()}`,
    accountId,
    hash: await sha256Hex(apiKey),
    prefix: apiKey.slice(0, API_KEY_PREFIX.length + 4),
    createdAt: now,
    revokedAt: null,
  };
  await db.add('apiKeys', record);
  return { apiKey, record };
}

/** The account of a plaintext key that is well-formed, known and not revoked. */
export async function accountForApiKey(db: Database, apiKey: string): Promise<string | null> {
  if (!apiKey.startsWith(API_KEY_PREFIX)) return null;
  const record = await db.getFromIndex('apiKeys', 'by-hash', await sha256Hex(apiKey));
  return record && record.revokedAt === null ? record.accountId : null;
}

/** Revokes by key id or plaintext key; false when no such key. */
export async function revokeApiKey(db: Database, keyIdOrApiKey: string, now: number): Promise<boolean> {
  const hash = keyIdOrApiKey.startsWith(API_KEY_PREFIX) ? await sha256Hex(keyIdOrApiKey) : null;
  const tx = db.transaction('apiKeys', 'readwrite');
  const record = hash === null ? await tx.store.get(keyIdOrApiKey) : await tx.store.index('by-hash').get(hash);
  if (record && record.revokedAt === null) {
    record.revokedAt = now;
    await tx.store.put(record);
  }
  await tx.done;
  return record !== undefined;
}

/** Every key of an account, revoked ones included. */
export async function listApiKeys(db: Database, accountId: string): Promise<ApiKeyRecord[]> {
  return db.getAllFromIndex('apiKeys', 'by-account', accountId);
}
