/**
 * The browser-test harness page (built only by `vite build --mode test` into dist-test/).
 * Node-side tests drive it with `page.evaluate(() => window.harness.…)`; everything here runs
 * for real in Chromium: the service worker, IndexedDB, fetch, Blob and crypto.subtle.
 *
 * @module
 */
import { startMulticam, type MulticamInstance } from '../../../src/dom/start.ts';
import type { EngineStage } from '../../../src/contract/engine.ts';
import { openDatabase, type Database } from '../../../src/store/db.ts';
import { digestStream, expectedDigest, generateBlob, type ChunkedDigest } from './bytes.ts';
import { createPageTestEngine, type PageStageOutput, type PageTestEngine } from './page-test-engine.ts';

/** A response, reduced to what crosses `page.evaluate`. */
export interface PageResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * A request, as it crosses `page.evaluate`: small bytes as a plain array, large ones staged
 * beforehand with `stageBody` (base64 slices) and named by id, or `length` copies of one byte
 * made here (a 100 MB multipart part without 133 MB of base64 through the driver).
 */
export interface PageRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | number[] | { staged: string } | { fill: number; length: number };
}

/** Bodies sent from Node in base64 slices, by id, until a request uses them. */
const stagedBodies = new Map<string, Uint8Array<ArrayBuffer>[]>();

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  // Uint8Array.fromBase64 (Chromium 140+) is native; the lib files of TS 5.9 lack its type.
  const native = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (native) return native(text);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function requestBody(body: PageRequestInit['body']): BodyInit | undefined {
  if (body === undefined || typeof body === 'string') return body;
  if (Array.isArray(body)) return new Uint8Array(body);
  // A Blob, as staged bodies are: Chromium copies an array body into the request's DevTools
  // events (base64, for the driver to read), a blob body it does not.
  if ('fill' in body) return new Blob([new Uint8Array(body.length).fill(body.fill)]);
  const slices = stagedBodies.get(body.staged);
  if (!slices) throw new Error(`no staged body ${body.staged}`);
  stagedBodies.delete(body.staged);
  return new Blob(slices);
}

let instance: MulticamInstance | undefined;
let db: Database | undefined;
let engine: PageTestEngine | undefined;

function running(): MulticamInstance {
  if (!instance) throw new Error('harness.start() was not called');
  return instance;
}

function testEngine(): PageTestEngine {
  if (!engine) throw new Error('harness.start() was not called');
  return engine;
}

function headersOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => (out[key] = value));
  return out;
}

const harness = {
  /**
   * Registers the service worker for this base path and database; opens the library API.
   * `persistStorage: false` skips asking to keep the site's storage (Firefox prompts for it).
   */
  async start(options: {
    basePath: string;
    dbName: string;
    apiOrigins?: string[];
    persistStorage?: boolean;
  }): Promise<{ baseUrl: string; controller: string }> {
    engine?.dispose();
    db?.close();
    instance?.close();
    instance = await startMulticam(options);
    db = await openDatabase(options.dbName);
    engine = createPageTestEngine(db, options.dbName, instance.service.reporter);
    return { baseUrl: instance.baseUrl, controller: navigator.serviceWorker.controller?.scriptURL ?? '' };
  },

  /** A real fetch from this page. */
  async request(url: string, init: PageRequestInit = {}): Promise<PageResponse> {
    const body = requestBody(init.body);
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: init.headers ?? {},
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, headers: headersOf(response), text: await response.text() };
  },

  /** Appends a base64 slice to the staged body `id` (see {@link PageRequestInit}). */
  stageBody(id: string, base64: string): void {
    const slices = stagedBodies.get(id) ?? [];
    slices.push(fromBase64(base64));
    stagedBodies.set(id, slices);
  },

  async createAccount(quotaMinutes: number | null | undefined): Promise<{ accountId: string; apiKey: string }> {
    return running().accounts.create(quotaMinutes === undefined ? {} : { quotaMinutes });
  },
  async createApiKey(accountId: string): Promise<string> {
    return (await running().accounts.createApiKey(accountId)).apiKey;
  },
  async revokeApiKey(apiKey: string): Promise<void> {
    await running().accounts.revokeApiKey(apiKey);
  },

  pendingStages(): Promise<Array<{ jobId: string; stage: EngineStage }>> {
    return testEngine().pendingStages();
  },
  completeStage(jobId: string, stage: EngineStage, output?: PageStageOutput): Promise<void> {
    return testEngine().completeStage(jobId, stage, output);
  },
  failStage(jobId: string, stage: EngineStage, options: { message: string; permanent?: boolean }): Promise<void> {
    return testEngine().failStage(jobId, stage, options);
  },
  events(jobId: string): Promise<Array<{ id: string; type: string; payload: Record<string, unknown> }>> {
    return testEngine().events(jobId);
  },

  /** PUTs bytes `[start, end)` of the generated file `seed` to `url` (a signed upload URL). */
  async putGenerated(url: string, seed: number, start: number, end: number): Promise<PageResponse & { ms: number }> {
    const blob = generateBlob(seed, start, end);
    const t0 = performance.now();
    const response = await fetch(url, { method: 'PUT', body: blob });
    const text = await response.text();
    return { status: response.status, headers: headersOf(response), text, ms: performance.now() - t0 };
  },

  /** GETs `url` (optionally with a Range header) and digests the body as it streams in. */
  async digestUrl(url: string, range?: string): Promise<PageResponse & ChunkedDigest> {
    const response = await fetch(url, range === undefined ? {} : { headers: { range } });
    const headers = headersOf(response);
    if (!response.body)
      return { status: response.status, headers, text: '', ...(await digestStream(new Blob([]).stream())) };
    if (response.status >= 400)
      return { status: response.status, headers, text: await response.text(), bytes: 0, sha256: '' };
    return { status: response.status, headers, text: '', ...(await digestStream(response.body)) };
  },

  /** The digest that bytes `[start, end)` of the generated file `seed` must have. */
  expectedDigest(seed: number, start: number, end: number): Promise<ChunkedDigest> {
    return expectedDigest(seed, start, end);
  },

  /**
   * The bench's baseline: writes bytes `[start, end)` of file `seed` into a plain IndexedDB
   * database as Blob records of `chunkSize` bytes, one transaction per record, and returns
   * the time spent writing (generation excluded, as for uploads).
   */
  async idbWriteGenerated(
    dbName: string,
    seed: number,
    start: number,
    end: number,
    chunkSize: number,
  ): Promise<{ ms: number }> {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(dbName, 1);
      request.onupgradeneeded = () => request.result.createObjectStore('chunks');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error(`cannot open ${dbName}`));
    });
    let ms = 0;
    try {
      for (let pos = start; pos < end; pos += chunkSize) {
        const blob = generateBlob(seed, pos, Math.min(end, pos + chunkSize));
        const t0 = performance.now();
        await new Promise<void>((resolve, reject) => {
          const tx = db.transaction('chunks', 'readwrite');
          tx.objectStore('chunks').put(blob, pos);
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed'));
        });
        ms += performance.now() - t0;
      }
    } finally {
      db.close();
    }
    return { ms };
  },

  /** Deletes a database the bench made. */
  deleteDatabase(dbName: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = indexedDB.deleteDatabase(dbName);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error ?? new Error(`cannot delete ${dbName}`));
    });
  },

  /** `performance.measureUserAgentSpecificMemory()` in bytes, or null where unavailable. */
  async userAgentMemory(): Promise<number | null> {
    const perf = performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> };
    if (!crossOriginIsolated || typeof perf.measureUserAgentSpecificMemory !== 'function') return null;
    return (await perf.measureUserAgentSpecificMemory()).bytes;
  },
};

/** The type Node-side tests cast `window.harness` to (see test/browser/harness-page.ts). */
export type HarnessPage = typeof harness;

(window as unknown as { harness: HarnessPage }).harness = harness;
document.body.dataset['ready'] = '1';
