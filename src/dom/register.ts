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

/** The message a page posts to its registration's active worker to be claimed again (src/sw/sw.ts). */
export const CLAIM_MESSAGE = 'multicam:claim';

/** How often the wait looks at the registration besides `controllerchange`. */
const LOOK_EVERY_MS = 1_000;
/** After this long without control the wait mends what it can see (at most once each). */
const MEND_AFTER_MS = 10_000;

/**
 * Registers (or re-registers with a new configuration) the service worker at scope `/` and
 * resolves once a worker with exactly this script URL controls the page. The worker calls
 * `skipWaiting` and `clients.claim`, so this happens without a reload.
 *
 * Besides `controllerchange` it looks at the registration every second, and after 10 s without
 * control it mends the two stalls seen on a loaded machine, once each: a worker with this URL is
 * active but the page is not controlled (it asks that worker to claim its pages again), or no
 * worker with this URL is installing, waiting or active (another page's registration with
 * another configuration replaced it: it registers again). A timeout names what the registration
 * held, so a stall is diagnosable from the error alone.
 */
export async function registerServiceWorker(config: RegistrationConfig): Promise<ServiceWorkerRegistration> {
  if (!('serviceWorker' in navigator)) {
    throw new Error(
      'service workers are not available here (a secure context such as http://127.0.0.1 or https is needed)',
    );
  }
  const scriptUrl = serviceWorkerScriptUrl(config);
  const container = navigator.serviceWorker;
  const register = () => container.register(scriptUrl, { scope: '/', type: 'module', updateViaCache: 'none' });
  let registration: ServiceWorkerRegistration | undefined;
  let stopWaiting = (): void => undefined;
  const controlled = new Promise<void>((resolve, reject) => {
    const timeoutMs = config.timeoutMs ?? 60_000;
    const started = Date.now();
    const mended = { claim: false, register: false };
    const check = (): boolean => {
      if (container.controller?.scriptURL !== scriptUrl) return false;
      stopWaiting();
      resolve();
      return true;
    };
    const look = (): void => {
      if (check() || registration === undefined || Date.now() - started < MEND_AFTER_MS) return;
      const held = [registration.installing, registration.waiting, registration.active];
      if (registration.active?.scriptURL === scriptUrl && !mended.claim) {
        mended.claim = true;
        registration.active.postMessage(CLAIM_MESSAGE);
      } else if (!held.some((w) => w?.scriptURL === scriptUrl) && !mended.register) {
        mended.register = true;
        register().then(
          (again) => void (registration = again),
          () => undefined, // the timeout below says what the registration holds
        );
      }
    };
    const timer = setTimeout(() => {
      stopWaiting();
      reject(
        new Error(
          `the service worker ${scriptUrl} did not take control within ${timeoutMs} ms (${describe(registration, container)})`,
        ),
      );
    }, timeoutMs);
    const looking = setInterval(look, LOOK_EVERY_MS);
    stopWaiting = () => {
      container.removeEventListener('controllerchange', check);
      clearTimeout(timer);
      clearInterval(looking);
    };
    container.addEventListener('controllerchange', check);
    check();
  });
  // The worker is an ES module (vite emits shared chunks it imports).
  try {
    registration = await register();
  } catch (error) {
    // No worker will take control: stop waiting, and say why the script could not be registered.
    stopWaiting();
    throw (await diagnoseScript(scriptUrl)) ?? error;
  }
  await controlled;
  return registration;
}

/** What a registration holds and what controls the page, for a timeout's message. */
function describe(registration: ServiceWorkerRegistration | undefined, container: ServiceWorkerContainer): string {
  const worker = (w: ServiceWorker | null | undefined): string =>
    w ? `${new URL(w.scriptURL).search || w.scriptURL} ${w.state}` : 'none';
  const controller = `controller ${worker(container.controller)}`;
  if (registration === undefined) return `not registered yet; ${controller}`;
  return `installing ${worker(registration.installing)}, waiting ${worker(registration.waiting)}, active ${worker(registration.active)}; ${controller}`;
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
