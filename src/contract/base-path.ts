/**
 * The base path the contract is answered under (`/api` by default): normalising it, and the
 * cheap test whether a URL falls under it. One home for the service, the routes, the page's
 * service-worker registration and the service worker itself.
 *
 * @module
 */

/** The default base path of the contract. */
export const DEFAULT_BASE_PATH = '/api';

/**
 * Normalises a base path: one leading slash, no trailing slash, surrounding whitespace
 * trimmed. Throws when it is not a plain path such as `/api` (the root, or a query, fragment
 * or whitespace inside).
 */
export function normaliseBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  if (path === '/' || /[?#\s]/.test(path)) {
    throw new Error(`basePath must be a path such as /api, got ${JSON.stringify(basePath)}`);
  }
  return path;
}

/**
 * True when `url`'s path is the base path or under it, on whatever origin: the route handler's
 * test (its 404 for anything else). Which requests reach the handler at all is decided by
 * {@link isContractPath} and the service worker's origin check.
 */
export function isUnderBase(basePath: string, url: { readonly pathname: string }): boolean {
  return url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
}

/** The first path segments under the base path that the contract owns (`/api/jobs…`, `/api/uploads/…`, `/api/signed/…`). */
const CONTRACT_SEGMENTS = ['jobs', 'uploads', 'signed'] as const;

/**
 * True when `url`'s path is one the contract owns: `{basePath}/jobs`, or under
 * `{basePath}/jobs/`, `{basePath}/uploads/` or `{basePath}/signed/`. A host app's own
 * `/api/other` (or `/api/webhooks`) is not, so the service worker leaves it to the network.
 * Origin is not looked at here. Synchronous and cheap: the service worker's fetch handler
 * needs it before it may call `respondWith`.
 */
export function isContractPath(basePath: string, url: { readonly pathname: string }): boolean {
  if (!url.pathname.startsWith(`${basePath}/`)) return false;
  const rest = url.pathname.slice(basePath.length + 1);
  return CONTRACT_SEGMENTS.some((segment) => rest === segment || rest.startsWith(`${segment}/`));
}
