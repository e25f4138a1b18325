/**
 * The per-page asset cache (src/models/asset-cache.ts, issue 53): however many workers ask at
 * once, each URL is fetched once per cache; caches of pages that are gone are deleted, the one
 * of a live page never. Node has no Cache API or Web Locks: the doubles below stand in for them
 * (an exclusive lock manager, a Map-backed CacheStorage), as a browser's would behave.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  ASSET_CACHE_PREFIX,
  fetchAssetOnce,
  holdAssetCache,
  ortWasmBytes,
} from '../../../src/models/asset-cache.ts';

/** A LockManager double: exclusive locks granted in request order, released when the callback settles. */
class LockManagerDouble {
  private readonly tails = new Map<string, Promise<unknown>>();
  readonly heldNames = new Set<string>();

  request<T>(name: string, callback: () => T | Promise<T>): Promise<T> {
    const before = this.tails.get(name) ?? Promise.resolve();
    const run = before.then(async () => {
      this.heldNames.add(name);
      try {
        return await callback();
      } finally {
        this.heldNames.delete(name);
      }
    });
    this.tails.set(
      name,
      run.catch(() => undefined),
    );
    return run;
  }

  async query(): Promise<{ held: Array<{ name: string }> }> {
    return { held: [...this.heldNames].map((name) => ({ name })) };
  }
}

const keyOf = (request: RequestInfo | URL): string =>
  typeof request === 'string' ? request : request instanceof URL ? request.href : request.url;

/** A CacheStorage double: named caches of URL → stored bytes and content type. */
class CacheStorageDouble {
  readonly stores = new Map<string, Map<string, { bytes: ArrayBuffer; type: string }>>();

  async open(name: string): Promise<Pick<Cache, 'match' | 'put'>> {
    let store = this.stores.get(name);
    if (!store) this.stores.set(name, (store = new Map()));
    const entries = store;
    const cache: Pick<Cache, 'match' | 'put'> = {
      async match(request: RequestInfo | URL) {
        const hit = entries.get(keyOf(request));
        return hit ? new Response(hit.bytes.slice(0), { headers: { 'Content-Type': hit.type } }) : undefined;
      },
      async put(request: RequestInfo | URL, response: Response) {
        entries.set(keyOf(request), {
          bytes: await response.arrayBuffer(),
          type: response.headers.get('content-type') ?? '',
        });
      },
    };
    return cache;
  }

  async keys(): Promise<string[]> {
    return [...this.stores.keys()];
  }

  async delete(name: string): Promise<boolean> {
    return this.stores.delete(name);
  }
}

const WASM_URL = 'http://127.0.0.1:5173/wasm/ort/ort-wasm-simd-threaded.wasm';
let locks: LockManagerDouble;
let storage: CacheStorageDouble;
let fetched: Array<{ url: string; method: string }>;

beforeEach(() => {
  locks = new LockManagerDouble();
  storage = new CacheStorageDouble();
  fetched = [];
  vi.stubGlobal('navigator', { locks });
  vi.stubGlobal('caches', storage);
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    fetched.push({ url, method: init.method ?? 'GET' });
    // A little later, as a network answers: the other callers are waiting by then.
    await new Promise((r) => setTimeout(r, 5));
    if (url.endsWith('/missing.onnx')) return new Response('not found', { status: 404 });
    return new Response(new Uint8Array([1, 2, 3, url.length % 256]), {
      headers: { 'Content-Type': 'application/wasm' },
    });
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('fetchAssetOnce', () => {
  test("four workers asking at once for the same URL through the page's cache: one download, the same bytes for each", async () => {
    const held = holdAssetCache()!;
    const got = await Promise.all(
      [1, 2, 3, 4].map(() => fetchAssetOnce(WASM_URL, "onnxruntime-web's wasm", held.name)),
    );
    expect(fetched).toEqual([{ url: WASM_URL, method: 'GET' }]);
    for (const bytes of got) expect([...new Uint8Array(bytes)]).toEqual([1, 2, 3, WASM_URL.length % 256]);
    // Each caller has a buffer of its own (onnxruntime's is detached once it is compiled).
    expect(new Set(got).size).toBe(4);
    await held.release();
  });

  test('without a cache name each caller fetches for itself, as before', async () => {
    await Promise.all([1, 2].map(() => fetchAssetOnce(WASM_URL, "onnxruntime-web's wasm")));
    expect(fetched).toHaveLength(2);
  });

  test('two pages (two caches) each fetch once', async () => {
    const a = holdAssetCache()!;
    const b = holdAssetCache()!;
    await Promise.all([a, a, b, b].map((held) => fetchAssetOnce(WASM_URL, 'wasm', held.name)));
    expect(fetched).toHaveLength(2);
    await a.release();
    await b.release();
  });

  test('a file the app does not serve is named with the fix, and nothing is stored', async () => {
    const held = holdAssetCache()!;
    const url = 'http://127.0.0.1:5173/models/missing.onnx';
    await expect(fetchAssetOnce(url, 'the VAD model', held.name)).rejects.toThrow(
      /the VAD model .*missing\.onnx is not served \(HTTP 404\).*multicam\(\) plugin/,
    );
    expect([...(storage.stores.get(held.name)?.keys() ?? [])]).toEqual([]);
    await held.release();
  });

  test("ortWasmBytes: the build's .wasm through the cache; without one only a HEAD check (onnxruntime fetches it)", async () => {
    const held = holdAssetCache()!;
    const bytes = await ortWasmBytes('webgpu', 'http://127.0.0.1:5173/wasm/ort/', held.name);
    expect(bytes?.byteLength).toBe(4);
    expect(await ortWasmBytes('wasm', 'http://127.0.0.1:5173/wasm/ort/')).toBeUndefined();
    expect(fetched).toEqual([
      { url: 'http://127.0.0.1:5173/wasm/ort/ort-wasm-simd-threaded.jsep.wasm', method: 'GET' },
      { url: WASM_URL, method: 'HEAD' },
    ]);
    await held.release();
  });
});

describe('holdAssetCache', () => {
  test("a new page deletes the caches of pages that are gone, never a live page's; release deletes its own", async () => {
    // A page that closed (its cache is there, its holder lock is not).
    storage.stores.set(`${ASSET_CACHE_PREFIX}gone`, new Map());
    // Something else of the origin's, not ours.
    storage.stores.set('app-cache', new Map());
    const live = holdAssetCache()!;
    await fetchAssetOnce(WASM_URL, 'wasm', live.name);
    const next = holdAssetCache()!;
    await vi.waitFor(() => expect(storage.stores.has(`${ASSET_CACHE_PREFIX}gone`)).toBe(false));
    expect([...storage.stores.keys()].sort()).toEqual(['app-cache', live.name].sort());
    await live.release();
    expect(storage.stores.has(live.name)).toBe(false);
    await next.release();
    expect(locks.heldNames.size).toBe(0);
  });

  test('null where the Cache API is missing: the workers fetch for themselves', () => {
    vi.stubGlobal('caches', undefined);
    expect(holdAssetCache()).toBeNull();
  });
});
