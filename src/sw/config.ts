/**
 * How the service worker learns its configuration: from the query of its own script URL
 * (`/sw.js?base=/api&db=multicam&origin=https%3A%2F%2Fapi.example.com`). The registration URL
 * is persistent, so the worker reads the same configuration every time the browser restarts
 * it, without any message.
 *
 * @module
 */
import { DEFAULT_BASE_PATH, normaliseBasePath } from '../contract/base-path.ts';
import { normaliseApiOrigin, type InterceptScope } from '../routes/scope.ts';

/** The configuration the registration passes to the service worker. */
export interface ServiceWorkerConfig extends InterceptScope {
  /** The path prefix the worker answers under, e.g. `/api`. */
  basePath: string;
  /** The IndexedDB database name; undefined means the store's default. */
  dbName: string | undefined;
  /**
   * Foreign origins the app named (`origin` parameters, e.g. `https://api.example.com`) whose
   * contract paths the worker answers too, so a client with a hard-coded base URL runs unchanged.
   * Any other foreign origin goes to the network.
   */
  apiOrigins: string[];
}

/** Reads the configuration back from the worker's own script URL; throws on a malformed one. */
export function readServiceWorkerConfig(scriptUrl: string): ServiceWorkerConfig {
  const params = new URL(scriptUrl).searchParams;
  const basePath = normaliseBasePath(params.get('base') ?? DEFAULT_BASE_PATH);
  return {
    basePath,
    dbName: params.get('db') ?? undefined,
    apiOrigins: [...new Set(params.getAll('origin').map((origin) => normaliseApiOrigin(origin, basePath)))],
  };
}
