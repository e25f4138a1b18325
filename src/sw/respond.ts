/**
 * Response decoration done by the service worker adapter, outside the pure handler.
 *
 * @module
 */

/** Header set on every response the service worker produced. */
export const SERVED_BY_HEADER = 'x-multicam-served-by';
/** Value of {@link SERVED_BY_HEADER}. */
export const SERVED_BY_SERVICE_WORKER = 'service-worker';

/**
 * Marks a response as produced by the service worker. No CORS headers are needed for a
 * foreign base URL: Chromium hands a response the worker constructed to the page as a
 * `basic` response, every header readable (measured: test/browser/sw.test.ts).
 */
export function markServedByServiceWorker(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set(SERVED_BY_HEADER, SERVED_BY_SERVICE_WORKER);
  // 101, 204, 205 and 304 may not carry a body; Response would throw otherwise.
  const body = [101, 204, 205, 304].includes(response.status) ? null : response.body;
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

function errorResponse(status: number, error: string): Response {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { 'content-type': 'application/json', [SERVED_BY_HEADER]: SERVED_BY_SERVICE_WORKER },
  });
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** 503 in the contract's Error shape when the storage cannot be opened. */
export function serviceUnavailable(error: unknown): Response {
  return errorResponse(503, `storage unavailable: ${messageOf(error)}`);
}

/** 500 in the contract's Error shape when the handler itself rejected. */
export function serverError(error: unknown): Response {
  return errorResponse(500, `server error in the service worker: ${messageOf(error)}`);
}
