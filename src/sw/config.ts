/**
 * How the service worker learns its configuration: from the query of its own script URL
 * (`/sw.js?base=/api&db=multicam`). The registration URL is persistent, so the worker reads
 * the same configuration every time the browser restarts it, without any message.
 *
 * @module
 */

/** The configuration the registration passes to the service worker. */
export interface ServiceWorkerConfig {
  /** The path prefix the worker answers for, on any origin, e.g. `/api`. */
  basePath: string;
  /** The IndexedDB database name; undefined means the store's default. */
  dbName: string | undefined;
}

/** The default base path of the contract. */
export const DEFAULT_BASE_PATH = '/api';

/**
 * Normalises a base path: one leading slash, no trailing slash.
 * Throws when it is not a plain path (it names the field at fault).
 */
export function normaliseBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  if (path === '/' || path === '' || /[?#\s]/.test(path)) {
    throw new Error(`basePath must be a path such as /api, got ${JSON.stringify(basePath)}`);
  }
  return path;
}

/** Reads the configuration back from the worker's own script URL. */
export function readServiceWorkerConfig(scriptUrl: string): ServiceWorkerConfig {
  const params = new URL(scriptUrl).searchParams;
  return {
    basePath: normaliseBasePath(params.get('base') ?? DEFAULT_BASE_PATH),
    dbName: params.get('db') ?? undefined,
  };
}

/**
 * The cheap, synchronous test the fetch handler needs before it may call `respondWith`:
 * does the path fall under the base path? Origin is deliberately ignored, so a client that
 * hard-codes `https://api.example.com/api` is answered too.
 */
export function isUnderBasePath(url: URL, basePath: string): boolean {
  return url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
}
