/**
 * The service worker: a thin adapter around the contract's `handle(request)`.
 *
 * For every fetch of a path the contract owns (`/api/jobs…`, `/api/uploads/…`,
 * `/api/signed/…`) on the page's own origin, or on a foreign origin the app configured (so a
 * client with a hard-coded `https://api.example.com/api` runs unchanged in a controlled page),
 * it answers with `service.handle(request)`; everything else (a host app's own `/api/other`,
 * a webhook delivery, any origin not configured) goes to the network as if there were no
 * worker. See {@link interceptsFetch}. Links meant for a person (review, downloads) are built
 * on the page's origin, the worker's own. The worker cannot run the pipeline (no VideoDecoder, no nested
 * workers here), so its Engine is the queue engine: work items go to IndexedDB and a
 * BroadcastChannel message wakes the page that holds the engine lock.
 *
 * @module
 */
import { createService, type MulticamService } from '../service.ts';
import { createQueueEngine } from '../pipeline/queue-engine.ts';
import { interceptsFetch } from '../routes/scope.ts';
import { readServiceWorkerConfig } from './config.ts';
import { markServedByServiceWorker, serverError, serviceUnavailable } from './respond.ts';

const sw = self as unknown as ServiceWorkerGlobalScope;
const config = readServiceWorkerConfig(sw.location.href);

let service: Promise<MulticamService> | undefined;
/** Opens the service on first use; a failed open is retried on the next request. */
function getService(): Promise<MulticamService> {
  service ??= createService({
    basePath: config.basePath,
    // The controlled pages are same-origin with the worker.
    pageOrigin: sw.location.origin,
    engine: createQueueEngine(config.dbName === undefined ? {} : { dbName: config.dbName }),
    ...(config.dbName === undefined ? {} : { dbName: config.dbName }),
  }).catch((error: unknown) => {
    service = undefined;
    throw error;
  });
  return service;
}

async function answer(request: Request): Promise<Response> {
  let opened: MulticamService;
  try {
    opened = await getService();
  } catch (error) {
    return serviceUnavailable(error);
  }
  try {
    return markServedByServiceWorker(await opened.handle(request));
  } catch (error) {
    // handle() answers errors itself; this is the last line against a rejected promise,
    // which the page would otherwise see as an opaque network failure.
    return serverError(error);
  }
}

sw.addEventListener('install', () => void sw.skipWaiting());
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));
// A page whose registration found this worker active without being controlled by it asks to be
// claimed again (src/dom/register.ts, `CLAIM_MESSAGE`; the runtimes are separate projects).
sw.addEventListener('message', (event) => {
  if (event.data === 'multicam:claim') event.waitUntil(sw.clients.claim());
});
sw.addEventListener('fetch', (event) => {
  if (!interceptsFetch(config, sw.location.origin, event.request)) return;
  event.respondWith(answer(event.request));
});
