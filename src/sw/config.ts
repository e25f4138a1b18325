/**
 * How the service worker learns its configuration: from the query of its own script URL
 * (`/sw.js?base=/api&db=multicam`). The registration URL is persistent, so the worker reads
 * the same configuration every time the browser restarts it, without any message.
 *
 * @module
 */
import { DEFAULT_BASE_PATH, normaliseBasePath } from '../contract/base-path.ts';

/** The configuration the registration passes to the service worker. */
export interface ServiceWorkerConfig {
  /** The path prefix the worker answers for, on any origin, e.g. `/api`. */
  basePath: string;
  /** The IndexedDB database name; undefined means the store's default. */
  dbName: string | undefined;
}

/** Reads the configuration back from the worker's own script URL. */
export function readServiceWorkerConfig(scriptUrl: string): ServiceWorkerConfig {
  const params = new URL(scriptUrl).searchParams;
  return {
    basePath: normaliseBasePath(params.get('base') ?? DEFAULT_BASE_PATH),
    dbName: params.get('db') ?? undefined,
  };
}
