/**
 * The public entry: `createService` wires the IndexedDB store, the route handler, accounts and
 * the stage reporter.
 *
 * @module
 */
import { URL_SIGNING_KEY, createSigner, newUrlSigningKey } from './auth/signer.ts';
import type { Engine } from './contract/engine.ts';
import { createStageReporter, type StageReporter } from './jobs/reporter.ts';
import type { ServiceContext } from './jobs/context.ts';
import { DEFAULT_BASE_PATH, isContractPath, normaliseBasePath } from './contract/base-path.ts';
import { createHandler } from './routes/handler.ts';
import { attachLocalSource, type LocalAttachResult } from './routes/uploads.ts';
import {
  DEFAULT_SECRET_OVERLAP_MS,
  createApiKey,
  getAccount,
  listApiKeys,
  newSigningSecret,
  putAccount,
  revokeApiKey,
  updateAccount,
} from './store/accounts.ts';
import { DB_NAME, openDatabase, type AccountRecord, type Database } from './store/db.ts';
import { openFileBlob } from './store/files.ts';
import { getJobRecord } from './store/jobs.ts';
import { getOrCreateMeta } from './store/meta.ts';
import { announceEvents } from './webhooks/events-channel.ts';

/** Options of {@link createService}. */
export interface ServiceOptions {
  /** Base path of the API; default `/api`. */
  basePath?: string;
  engine: Engine;
  /** Clock in ms since epoch; injectable for tests. */
  now?: () => number;
  /**
   * The origin of the page the service answers for, e.g. `http://127.0.0.1:5173`: review links,
   * download URLs and upload URLs in responses and events are built on it, even when the request
   * came to a foreign base URL (`https://api.example.com/api`), so a link a person clicks never
   * carries its token to that host. The service worker passes its own origin, `startMulticam`
   * the page's. Default none: links follow the request's origin (Node, msw).
   */
  pageOrigin?: string;
  /** IndexedDB database name; default `multicam`. */
  dbName?: string;
  /** IndexedDB factory; default the global `indexedDB` (tests pass a fresh fake-indexeddb factory). */
  indexedDB?: IDBFactory;
  /**
   * What the origin may still store; default `navigator.storage.estimate()` where the context
   * has it (pages, workers, the service worker), else no storage check.
   */
  storageEstimate?: () => Promise<{ quota?: number; usage?: number }>;
}

/** Account management (the settings page's library API; not part of the REST contract). */
export interface AccountsApi {
  create(options?: { name?: string; quotaMinutes?: number | null }): Promise<{ accountId: string; apiKey: string }>;
  /** The plaintext key is returned once; only its SHA-256 is stored. */
  createApiKey(accountId: string): Promise<{ apiKey: string; keyId: string }>;
  /** Immediate. Takes a key id or the plaintext key. */
  revokeApiKey(keyIdOrApiKey: string): Promise<void>;
  listApiKeys(
    accountId: string,
  ): Promise<Array<{ keyId: string; prefix: string; createdAt: string; revokedAt: string | null }>>;
  setQuota(accountId: string, quotaMinutes: number | null): Promise<void>;
  usage(accountId: string): Promise<{ usedMinutes: number; quotaMinutes: number | null }>;
  /** `whsec_…` secrets in force, newest first (two during a rotation). */
  signingSecrets(accountId: string): Promise<string[]>;
  rotateSigningSecret(accountId: string, options?: { overlapMs?: number }): Promise<string>;
}

/** The storage estimate the service checks uploads against: the option, else the platform's. */
function storageEstimateOf(options: ServiceOptions): Pick<ServiceContext, 'storageEstimate'> {
  if (options.storageEstimate) return { storageEstimate: options.storageEstimate };
  const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
  return storage?.estimate ? { storageEstimate: () => storage.estimate() } : {};
}

/** The service returned by {@link createService}. */
export interface MulticamService {
  /** The pure route handler: every operation + signed upload/download URLs. */
  handle(request: Request): Promise<Response>;
  /**
   * True for the paths the contract owns (`{basePath}/jobs…`, `{basePath}/uploads/…`,
   * `{basePath}/signed/…`), on any origin; false for a host app's own `{basePath}/other`. Which
   * origins reach the service is the caller's choice (the service worker: the page's own and the
   * configured `apiOrigins`).
   */
  owns(url: URL): boolean;
  accounts: AccountsApi;
  /** What engines call to report stage results (applies the transition table, records events). */
  reporter: StageReporter;
  /** A stored file (upload, audio, render) as a Blob composed of its chunks; a file used in place as its File. */
  openFileBlob(fileId: string): Promise<Blob>;
  /**
   * Uses a file the person picked as a source's file in place: no byte is copied into storage,
   * and the "upload" is done at once. Checked like an upload (the job created or uploading,
   * the size equal to the declared `fileSize`); errors are the contract's ApiError. Pass a
   * File System Access handle for a file the app may read again after a reload (the browser
   * may ask the person first); a File is held by this page only: after a reload, pick the same
   * file again (allowed in any status) before the engine needs it. See docs/long-footage.md.
   *
   * @example
   * const created = await client.createJob({ sources: [{ label: 'Cam A', ext: 'mp4', fileSize: file.size, local: true }, …] });
   * for (const [i, sourceId] of Object.keys(created.uploads).entries())
   *   await multicam.service.attachLocalFile(created.jobId, sourceId, picked[i]);
   * await client.startProcessing(created.jobId);
   */
  attachLocalFile(jobId: string, sourceId: string, picked: File | FileSystemFileHandle): Promise<LocalAttachResult>;
  /**
   * The job a review token (from a `reviewUrl`) grants, or why it does not (`invalid` also for a
   * revoked token, or one of a deleted job).
   */
  verifyReviewToken(token: string): Promise<{ jobId: string } | { problem: 'missing' | 'expired' | 'invalid' }>;
  /** Closes the database connection. */
  close(): void;
}

const iso = (ms: number): string => new Date(ms).toISOString();

async function requireAccount(db: Database, accountId: string): Promise<AccountRecord> {
  const account = await getAccount(db, accountId);
  if (!account) throw new Error(`account ${accountId} does not exist`);
  return account;
}

function checkQuota(quotaMinutes: number | null): void {
  if (quotaMinutes !== null && !(Number.isFinite(quotaMinutes) && quotaMinutes >= 0))
    throw new Error('quotaMinutes must be null or a number of at least 0');
}

/** The account administration of the service on `db`. */
function createAccountsApi(db: Database, now: () => number): AccountsApi {
  return {
    async create(createOptions = {}) {
      const quotaMinutes = createOptions.quotaMinutes ?? null;
      checkQuota(quotaMinutes);
      const accountId = `acc_${crypto.randomUUID()}`;
      const at = now();
      await putAccount(db, {
        id: accountId,
        name: createOptions.name ?? null,
        quotaMinutes,
        usedMinutes: 0,
        createdAt: at,
        signingSecrets: [{ secret: newSigningSecret(), createdAt: at, expiresAt: null }],
      });
      const { apiKey } = await createApiKey(db, accountId, at);
      return { accountId, apiKey };
    },
    async createApiKey(accountId) {
      await requireAccount(db, accountId);
      const { apiKey, record } = await createApiKey(db, accountId, now());
      return { apiKey, keyId: record.keyId };
    },
    async revokeApiKey(keyIdOrApiKey) {
      if (!(await revokeApiKey(db, keyIdOrApiKey, now()))) throw new Error('no such API key');
    },
    async listApiKeys(accountId) {
      const keys = await listApiKeys(db, accountId);
      return keys
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((k) => ({
          keyId: k.keyId,
          prefix: k.prefix,
          createdAt: iso(k.createdAt),
          revokedAt: k.revokedAt === null ? null : iso(k.revokedAt),
        }));
    },
    async setQuota(accountId, quotaMinutes) {
      checkQuota(quotaMinutes);
      if (!(await updateAccount(db, accountId, (a) => void (a.quotaMinutes = quotaMinutes))))
        throw new Error(`account ${accountId} does not exist`);
    },
    async usage(accountId) {
      const account = await requireAccount(db, accountId);
      return { usedMinutes: account.usedMinutes, quotaMinutes: account.quotaMinutes };
    },
    async signingSecrets(accountId) {
      const account = await requireAccount(db, accountId);
      const at = now();
      return account.signingSecrets.filter((s) => s.expiresAt === null || s.expiresAt > at).map((s) => s.secret);
    },
    async rotateSigningSecret(accountId, rotateOptions = {}) {
      const overlapMs = rotateOptions.overlapMs ?? DEFAULT_SECRET_OVERLAP_MS;
      const secret = newSigningSecret();
      const at = now();
      const found = await updateAccount(db, accountId, (account) => {
        // The old secrets stay in force for the overlap; expired ones are dropped.
        const kept = account.signingSecrets
          .filter((s) => s.expiresAt === null || s.expiresAt > at)
          .map((s) => ({ ...s, expiresAt: Math.min(s.expiresAt ?? Infinity, at + overlapMs) }));
        account.signingSecrets = [{ secret, createdAt: at, expiresAt: null }, ...kept.filter((s) => s.expiresAt > at)];
      });
      if (!found) throw new Error(`account ${accountId} does not exist`);
      return secret;
    },
  };
}

/**
 * Opens the database and returns the service.
 *
 * @example
 * const service = await createService({ engine });
 * const { apiKey } = await service.accounts.create({ name: 'me' });
 * const res = await service.handle(new Request('https://api.example.com/api/jobs', { headers: { authorization: `Bearer ${apiKey}` } }));
 */
export async function createService(options: ServiceOptions): Promise<MulticamService> {
  // Commits that record events nudge webhook delivery and subscribers in every context.
  const db = await openDatabase(options.dbName ?? DB_NAME, options.indexedDB ?? indexedDB, {
    onEventsRecorded: announceEvents,
  });
  const now = options.now ?? (() => Date.now());
  const ctx: ServiceContext = {
    db,
    engine: options.engine,
    signer: await createSigner(String(await getOrCreateMeta(db, URL_SIGNING_KEY, newUrlSigningKey))),
    basePath: normaliseBasePath(options.basePath ?? DEFAULT_BASE_PATH),
    now,
    ...(options.pageOrigin === undefined ? {} : { pageOrigin: new URL(options.pageOrigin).origin }),
    ...storageEstimateOf(options),
  };
  const handle = createHandler(ctx);

  const accounts = createAccountsApi(db, now);

  return {
    handle,
    owns: (url) => isContractPath(ctx.basePath, url),
    accounts,
    reporter: createStageReporter(ctx),
    openFileBlob: (fileId) => openFileBlob(db, fileId),
    attachLocalFile: (jobId, sourceId, picked) => attachLocalSource(ctx, jobId, sourceId, picked),
    async verifyReviewToken(token) {
      const verified = await ctx.signer.verifyReviewToken(token, now());
      if ('problem' in verified) return verified;
      const job = await getJobRecord(db, verified.jobId);
      return job && (job.reviewTokenVersion ?? 0) === verified.version
        ? { jobId: verified.jobId }
        : { problem: 'invalid' };
    },
    close: () => db.close(),
  };
}
