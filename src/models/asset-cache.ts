/**
 * Each runtime asset (onnxruntime's wasm, a model) fetched once per page, however many workers
 * need it. Every engine worker that runs onnxruntime (the analysis worker, each VAD lane, each
 * vision worker) used to fetch the 14 MB wasm itself: from a server that sends no validators,
 * four downloads for one job (issue 53).
 *
 * The page's engine names a Cache API cache of its own ({@link holdAssetCache}) and hands the
 * name to its workers with the asset URLs; a worker asks {@link fetchAssetOnce}, which, under a
 * Web Lock on the cache and URL, answers from that cache or fetches once and stores. The page
 * holds a second lock named after the cache for its whole life, so a page that starts later
 * deletes the caches of pages that are gone (closed, crashed) and never one in use; the page
 * deletes its own when its engine stops. Nothing outlives the page that fetched it, so a file
 * replaced on the server is never served stale to a later page.
 *
 * Compiling once per page is not offered: onnxruntime-web 1.30 takes the wasm's bytes
 * (`env.wasm.wasmBinary`) but no `WebAssembly.Module`, so each worker still compiles its own.
 *
 * Where the Cache API or Web Locks are missing (Node, a private window that refuses storage),
 * each caller fetches for itself, as before.
 *
 * @module
 */
import { ortWasmFile, type ExecutionProviderName } from './ort-runtime.ts';
import { fetchServed } from './served-asset.ts';

/** The prefix of the per-page asset caches. */
export const ASSET_CACHE_PREFIX = 'multicam-assets-';

/** The Web Lock a page holds while its asset cache `name` is in use. */
const holderLock = (name: string): string => `${name} holder`;

/** Whether this realm has what a shared asset cache needs. */
function cacheable(): boolean {
  return typeof caches !== 'undefined' && typeof navigator !== 'undefined' && navigator.locks !== undefined;
}

/** A page's asset cache, held while the page's engine runs. */
export interface HeldAssetCache {
  /** The cache's name, for the workers (`assetCache` in their requests). */
  readonly name: string;
  /** Lets go of the holder lock and deletes the cache. */
  release(): Promise<void>;
}

/**
 * Names a fresh asset cache for this page and holds it until {@link HeldAssetCache.release}
 * (the name is known at once; the holder lock is taken, and then the asset caches no live page
 * holds are deleted, in the background). Null where the Cache API or Web Locks are missing: the
 * workers then fetch for themselves.
 *
 * @example
 * const held = holdAssetCache();
 * worker.diarize({ ...request, ...(held ? { assetCache: held.name } : {}) });
 * addEventListener('pagehide', () => void held?.release());
 */
export function holdAssetCache(): HeldAssetCache | null {
  if (!cacheable()) return null;
  const name = `${ASSET_CACHE_PREFIX}${crypto.randomUUID()}`;
  let letGo: (() => void) | undefined;
  let released = false;
  navigator.locks
    .request(holderLock(name), () => {
      if (released) return undefined;
      const holding = new Promise<void>((resolve) => (letGo = resolve));
      void sweepAssetCaches().catch((error: unknown) => console.warn('asset caches of closed pages not deleted:', error));
      return holding;
    })
    .catch((error: unknown) => console.warn(`the asset cache ${name} is not held:`, error));
  return {
    name,
    async release() {
      released = true;
      letGo?.();
      await caches.delete(name).catch(() => false);
    },
  };
}

/** Deletes the asset caches whose holder lock no page holds (their pages closed or crashed). */
async function sweepAssetCaches(): Promise<void> {
  const names = (await caches.keys()).filter((n) => n.startsWith(ASSET_CACHE_PREFIX));
  if (names.length === 0) return;
  const held = new Set(((await navigator.locks.query()).held ?? []).map((lock) => lock.name));
  await Promise.all(names.filter((n) => !held.has(holderLock(n))).map((n) => caches.delete(n)));
}

/**
 * The bytes of `url` (checked as {@link fetchServed} does; `what` names it in errors), fetched at
 * most once for all callers that pass the same `cacheName`: the first fetches and stores, the
 * others, waiting on the same lock, read the stored copy. Without `cacheName` (or where the Cache
 * API refuses), a plain fetch.
 */
export async function fetchAssetOnce(url: string, what: string, cacheName?: string): Promise<ArrayBuffer> {
  const fetchBytes = async (): Promise<{ bytes: ArrayBuffer; type: string }> => {
    const response = await fetchServed(url, what);
    return { bytes: await response.arrayBuffer(), type: response.headers.get('content-type') ?? '' };
  };
  if (!cacheName || !cacheable()) return (await fetchBytes()).bytes;
  let cache: Cache;
  try {
    cache = await caches.open(cacheName);
  } catch {
    // A private window may refuse the Cache API: fetch as before.
    return (await fetchBytes()).bytes;
  }
  return navigator.locks.request(`${cacheName} ${url}`, async () => {
    const stored = await cache.match(url).catch(() => undefined);
    if (stored) return stored.arrayBuffer();
    const { bytes, type } = await fetchBytes();
    // A copy is stored (the Response takes its own); a full disk only costs the next worker a fetch.
    await cache
      .put(url, new Response(bytes, { headers: type ? { 'Content-Type': type } : {} }))
      .catch((error: unknown) => console.warn(`${what} not kept for the other workers:`, error));
    return bytes;
  });
}

/**
 * onnxruntime's `.wasm` for `provider` under `ortWasmPath`: with a page's asset cache, its bytes
 * (fetched once per page; give them to `configureOrtWasm`); without, undefined once it is known
 * to be served (onnxruntime then fetches it itself). A missing file is named with its fix here;
 * onnxruntime itself says only "no available backend found".
 */
export async function ortWasmBytes(
  provider: ExecutionProviderName,
  ortWasmPath: string,
  cacheName?: string,
): Promise<ArrayBuffer | undefined> {
  const url = new URL(ortWasmFile(provider), ortWasmPath).href;
  if (cacheName) return fetchAssetOnce(url, "onnxruntime-web's wasm", cacheName);
  await fetchServed(url, "onnxruntime-web's wasm", { method: 'HEAD' });
  return undefined;
}
