/**
 * The Node side of the contract harness: the pure handler over fake-indexeddb (a fresh
 * IDBFactory per harness) and the test engine, called with `new Request`. The clock is
 * injected, so expiry cases run here.
 *
 * @module
 */
import 'fake-indexeddb/auto'; // IDBKeyRange and friends as globals, as in a browser
import { IDBFactory } from 'fake-indexeddb';
import { createService, type MulticamService } from '../../src/service.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { listEventsForJob } from '../../src/store/events.ts';
import { TestEngine } from '../support/test-engine.ts';
import type { ContractHarness, HarnessRequestInit, HarnessResponse } from './harness.ts';

/** The Node harness, with the service and engine exposed for Node-only tests. */
export interface NodeHarness extends ContractHarness {
  readonly service: MulticamService;
  readonly engine: TestEngine;
  readonly db: Database;
}

/** Builds a Request the way a client would, from the harness's request init. */
export function toRequest(url: string, init: HarnessRequestInit = {}): Request {
  const headers = new Headers(init.headers ?? {});
  let body: BodyInit | undefined;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  } else if (typeof init.body === 'string' || init.body instanceof Uint8Array) {
    body = init.body as BodyInit;
  } else if (init.body !== undefined) {
    body = new Uint8Array(init.body.length).fill(init.body.fill);
  }
  return new Request(url, { method: init.method ?? 'GET', headers, ...(body === undefined ? {} : { body }) });
}

/** Reads a Response into the harness's shape. */
export async function toHarnessResponse(response: Response, servedByServiceWorker: boolean): Promise<HarnessResponse> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    json = null;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  return { status: response.status, headers, json, text, servedByServiceWorker };
}

/** A response body read loosely, as a client would read it. */
export type LooseJson = Record<string, any>;

/**
 * A caller of the harness `harness()` returns when called (a file's current harness) with an
 * account's key: `call(apiKey, 'POST', '/jobs', body)` → `{ status, body }`.
 */
export function bearerCaller(
  harness: () => NodeHarness,
): (apiKey: string, method: string, rest: string, json?: unknown) => Promise<{ status: number; body: LooseJson }> {
  return async (apiKey, method, rest, json) => {
    const h = harness();
    const r = await h.request(`${h.baseUrl}${rest}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}` },
      ...(json === undefined ? {} : { json }),
    });
    return { status: r.status, body: r.json as LooseJson };
  };
}

/** A fresh service on a fresh fake IndexedDB, answering under `baseUrl` (a foreign origin by default). */
export async function createNodeHarness(
  options: {
    baseUrl?: string;
    startMs?: number;
    /** The origin of the page the service runs for (the service worker's); default none: links follow the request. */
    pageOrigin?: string;
    /** A TEST DOUBLE of `navigator.storage.estimate()` (Node has none). */
    storageEstimate?: () => Promise<{ quota?: number; usage?: number }>;
  } = {},
): Promise<NodeHarness> {
  const baseUrl = options.baseUrl ?? 'https://api.example.com/api';
  const factory = new IDBFactory();
  let clock = options.startMs ?? Date.UTC(2026, 0, 1);
  const engine = new TestEngine();
  const service = await createService({
    engine,
    basePath: new URL(baseUrl).pathname,
    now: () => clock,
    indexedDB: factory,
    dbName: 'multicam-test',
    ...(options.pageOrigin === undefined ? {} : { pageOrigin: options.pageOrigin }),
    ...(options.storageEstimate ? { storageEstimate: options.storageEstimate } : {}),
  });
  engine.attach(service.reporter);
  const db = await openDatabase('multicam-test', factory);
  const origin = new URL(baseUrl).origin;

  return {
    baseUrl,
    linkOrigin: options.pageOrigin ?? origin,
    canAdvanceClock: true,
    service,
    engine,
    db,
    async request(url, init) {
      const absolute = /^https?:\/\//.test(url) ? url : origin + url;
      return toHarnessResponse(await service.handle(toRequest(absolute, init)), true);
    },
    createAccount: (accountOptions = {}) =>
      service.accounts.create(
        accountOptions.quotaMinutes === undefined ? {} : { quotaMinutes: accountOptions.quotaMinutes },
      ),
    createApiKey: async (accountId) => (await service.accounts.createApiKey(accountId)).apiKey,
    revokeApiKey: (apiKey) => service.accounts.revokeApiKey(apiKey),
    pendingStages: async () => engine.pending.map((w) => ({ ...w })),
    completeStage: (jobId, stage, output) => engine.complete(jobId, stage, output),
    failStage: (jobId, stage, failure) => engine.fail(jobId, stage, failure),
    async events(jobId) {
      return (await listEventsForJob(db, jobId)).map((e) => ({ id: e.id, type: e.type, payload: e.payload }));
    },
    async advanceClock(ms) {
      clock += ms;
    },
    async dispose() {
      db.close();
      service.close();
    },
  };
}
