/**
 * The page of test/reliability/hostile/storage.browser.test.ts: the library started on a
 * database of the test's choosing (optionally with the engine, whose start-up sweep collects
 * orphan chunk runs), real fetches through the service worker, bytes generated and digested in
 * the page, a writer that dies with its tab, and a look into the IndexedDB stores with the
 * plain `indexedDB` API (not the library's), so what the test sees is what is really stored.
 *
 * @module
 */
import { startMulticam, type MulticamInstance } from '../../../src/dom/start.ts';
import type { SweepResult } from '../../../src/store/sweep.ts';
import { digestStream, expectedDigest, generateBlob, generateRange, type ChunkedDigest } from './bytes.ts';

/** A response reduced to what crosses `page.evaluate`. */
export interface StorageResponse {
  status: number;
  text: string;
  /** The `x-multicam-served-by` header: `service-worker` when the worker answered. */
  servedBy: string | null;
}

/** What the stores hold, read with the plain IndexedDB API. */
export interface StorageSnapshot {
  /** Chunk records per run id (the first element of a chunk's key). */
  chunkRuns: Record<string, number>;
  /** Run ids a file record's segments reference. */
  fileRuns: string[];
  /** Run ids a part record references. */
  partRuns: string[];
  /** Run ids of open-run records (store `runs`; absent before DB version 3). */
  openRuns: string[];
  files: number;
  parts: number;
}

let instance: MulticamInstance | undefined;

function running(): MulticamInstance {
  if (!instance) throw new Error('storageTest.start() was not called');
  return instance;
}

async function reduce(response: Response): Promise<StorageResponse> {
  return {
    status: response.status,
    text: await response.text(),
    servedBy: response.headers.get('x-multicam-served-by'),
  };
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

const storageTest = {
  /** Starts the library on `dbName` (the engine too when `engine`, its sweep with `orphanGraceMs`). */
  async start(
    dbName: string,
    options: { engine?: boolean; orphanGraceMs?: number; createAccount?: boolean } = {},
  ): Promise<{ baseUrl: string; apiKey: string | null }> {
    instance = await startMulticam({
      basePath: '/api',
      dbName,
      persistStorage: false,
      ...(options.engine ? { engine: true } : {}),
      ...(options.orphanGraceMs === undefined ? {} : { orphanGraceMs: options.orphanGraceMs }),
    });
    await instance.engine?.started;
    const apiKey = options.createAccount ? (await instance.accounts.create()).apiKey : null;
    return { baseUrl: instance.baseUrl, apiKey };
  },

  /** A JSON request through the service worker; `tag` goes out as `x-test-request` so Node can observe it. */
  async api(apiKey: string, method: string, path: string, body?: unknown, tag?: string): Promise<StorageResponse> {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (tag !== undefined) headers['x-test-request'] = tag;
    return reduce(
      await fetch(`${running().baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  },

  /** Two identical requests sent at once (a client retrying while the first is still running). */
  async twice(apiKey: string, method: string, path: string, body: unknown, tags: [string, string]) {
    return Promise.all(tags.map((tag) => storageTest.api(apiKey, method, path, body, tag)));
  },

  /** PUTs bytes `[start, end)` of the generated file `seed` to a signed upload URL, as one Blob. */
  async putGenerated(url: string, seed: number, start: number, end: number): Promise<StorageResponse> {
    return reduce(await fetch(url, { method: 'PUT', body: generateBlob(seed, start, end) }));
  },

  /** GETs `url` and digests the body as it streams in. */
  async digestUrl(url: string): Promise<{ status: number; servedBy: string | null } & ChunkedDigest> {
    const response = await fetch(url);
    const servedBy = response.headers.get('x-multicam-served-by');
    if (!response.ok || !response.body)
      return { status: response.status, servedBy, bytes: (await response.arrayBuffer()).byteLength, sha256: '' };
    return { status: response.status, servedBy, ...(await digestStream(response.body)) };
  },

  /** The digest bytes `[start, end)` of the generated file `seed` must have. */
  expectedDigest(seed: number, start: number, end: number): Promise<ChunkedDigest> {
    return expectedDigest(seed, start, end);
  },

  /**
   * Starts a PUT to the signed `url` IN THIS PAGE (the library's own handler, the writer of the
   * run being this tab): a body stream that gives `chunks` full chunks of file `seed` and then
   * never ends, as a client whose tab is closed mid-upload. Nothing awaits it: the test closes
   * the tab while the handler waits for more bytes, so its clean-up never runs.
   */
  startDyingPut(url: string, seed: number, chunks: number, chunkSize: number): void {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks; i++) controller.enqueue(generateRange(seed, i * chunkSize, (i + 1) * chunkSize));
        // One byte more, so the last full chunk is flushed while the stream stays open.
        controller.enqueue(generateRange(seed, chunks * chunkSize, chunks * chunkSize + 1));
      },
    });
    void running().service.handle(new Request(url, { method: 'PUT', body, duplex: 'half' } as RequestInit));
  },

  /** What the engine's start-up sweep collected (null without the engine or when it failed). */
  async swept(): Promise<SweepResult | null> {
    return (await running().engine?.swept()) ?? null;
  },

  /** Reads the stores of `dbName` with the plain IndexedDB API (no version: whatever is there). */
  async snapshot(dbName: string): Promise<StorageSnapshot> {
    const db = await request(indexedDB.open(dbName));
    try {
      const names = ['chunks', 'files', 'parts', ...(db.objectStoreNames.contains('runs') ? ['runs'] : [])];
      const tx = db.transaction(names, 'readonly');
      const [chunkKeys, files, parts, open] = await Promise.all([
        request(tx.objectStore('chunks').getAllKeys()),
        request(tx.objectStore('files').getAll()),
        request(tx.objectStore('parts').getAll()),
        names.includes('runs') ? request(tx.objectStore('runs').getAllKeys()) : Promise.resolve([]),
      ]);
      const chunkRuns: Record<string, number> = {};
      for (const key of chunkKeys as Array<[string, number]>) chunkRuns[key[0]] = (chunkRuns[key[0]] ?? 0) + 1;
      const segments = (files as Array<{ segments: Array<{ chunkFileId: string }> }>).flatMap((f) => f.segments);
      return {
        chunkRuns,
        fileRuns: [...new Set(segments.map((s) => s.chunkFileId))],
        partRuns: (parts as Array<{ chunkFileId: string }>).map((p) => p.chunkFileId),
        openRuns: open as string[],
        files: files.length,
        parts: parts.length,
      };
    } finally {
      db.close();
    }
  },
};

/** The type the Node side casts `window.storageTest` to. */
export type StorageTestPage = typeof storageTest;

(window as unknown as { storageTest: StorageTestPage }).storageTest = storageTest;
document.body.dataset['ready'] = '1';
