/**
 * Registering the service worker from a page and waiting until it controls the page.
 *
 * @module
 */
import { normaliseBasePath } from '../contract/base-path.ts';
import { normaliseApiOrigin } from '../routes/scope.ts';
import { fetchServed } from '../models/served-asset.ts';

/** What the page passes to the service worker through its script URL. */
export interface RegistrationConfig {
  /** The path prefix the worker answers for, e.g. `/api`. */
  basePath: string;
  /** IndexedDB database name; omitted means the store's default. */
  dbName?: string;
  /**
   * Foreign origins whose contract paths the worker answers too, e.g. `['https://api.example.com']`
   * for a client that hard-codes `https://api.example.com/api` (a base URL whose path is the base
   * path is accepted as well). Default none: only the page's own origin is answered, and every
   * other origin goes to the network (a webhook receiver, another API under the same path).
   */
  apiOrigins?: readonly string[];
  /** Where the built worker is served; default `/sw.js` (scope `/`). */
  scriptPath?: string;
  /**
   * How long to wait for the worker to take control; default 60 s (a worker starting on a
   * machine busy with other work took over 15 s in CI: failing then would be worse than waiting).
   */
  timeoutMs?: number;
}

/**
 * The absolute script URL of the registration, e.g. `http://host/sw.js?base=%2Fapi`. The
 * service worker (src/sw/config.ts) reads the same query parameters, `base`, `db` and one
 * `origin` per foreign API origin (sorted, so the same set gives the same URL); the runtimes are
 * separate tsconfig projects, so the names are spelled in both places. Throws on a malformed
 * base path or origin.
 */
export function serviceWorkerScriptUrl(config: RegistrationConfig): string {
  const basePath = normaliseBasePath(config.basePath);
  const params = new URLSearchParams({ base: basePath });
  if (config.dbName !== undefined) params.set('db', config.dbName);
  const origins = new Set((config.apiOrigins ?? []).map((origin) => normaliseApiOrigin(origin, basePath)));
  origins.delete(location.origin); // the page's own origin is always answered
  for (const origin of [...origins].sort()) params.append('origin', origin);
  return new URL(`${config.scriptPath ?? '/sw.js'}?${params.toString()}`, location.href).href;
}

/**
 * Registers (or re-registers with a new configuration) the service worker at scope `/` and
 * resolves once a worker with exactly this script URL controls the page. The worker calls
 * `skipWaiting` and `clients.claim`, so this happens without a reload.
 */
export async function registerServiceWorker(config: RegistrationConfig): Promise<ServiceWorkerRegistration> {
  if (!('serviceWorker' in navigator)) {
    throw new Error(
      'service workers are not available here (a secure context such as http://127.0.0.1 or https is needed)',
    );
  }
  const scriptUrl = serviceWorkerScriptUrl(config);
  const container = navigator.serviceWorker;
  let stopWaiting = (): void => undefined;
  const controlled = new Promise<void>((resolve, reject) => {
    const timeoutMs = config.timeoutMs ?? 60_000;
    const check = (): boolean => {
      if (container.controller?.scriptURL !== scriptUrl) return false;
      stopWaiting();
      resolve();
      return true;
    };
    const timer = setTimeout(() => {
      stopWaiting();
      reject(new Error(`the service worker ${scriptUrl} did not take control within ${timeoutMs} ms`));
    }, timeoutMs);
    stopWaiting = () => {
      container.removeEventListener('controllerchange', check);
      clearTimeout(timer);
    };
    container.addEventListener('controllerchange', check);
    check();
  });
  // The worker is an ES module (vite emits shared chunks it imports).
  let registration: ServiceWorkerRegistration;
  try {
    registration = await container.register(scriptUrl, { scope: '/', type: 'module', updateViaCache: 'none' });
  } catch (error) {
    // No worker will take control: stop waiting, and say why the script could not be registered.
    stopWaiting();
    throw (await diagnoseScript(scriptUrl)) ?? error;
  }
  await controlled;
  return registration;
}

/**
 * Why the script at `scriptUrl` cannot be registered, when it is not served as JavaScript (a 404,
 * or an HTML fallback page), else null (the registration failed for another reason).
 */
async function diagnoseScript(scriptUrl: string): Promise<Error | null> {
  try {
    await fetchServed(
      scriptUrl.split('?')[0]!,
      'multicam: the service worker script',
      { cache: 'no-store' },
      /javascript/i,
    );
    return null;
  } catch (error) {
    return error as Error;
  }
}
