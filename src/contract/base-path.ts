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
 * True when `url`'s path is the base path or under it. Origin is deliberately ignored, so a
 * client that hard-codes `https://api.example.com/api` is answered too. Synchronous and cheap:
 * the service worker's fetch handler needs it before it may call `respondWith`.
 */
export function isUnderBase(basePath: string, url: { readonly pathname: string }): boolean {
  return url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
}
