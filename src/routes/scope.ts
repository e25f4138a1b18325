/**
 * Which fetches the contract answers in a page: the contract's own paths, on the page's origin
 * or a foreign API origin the app configured, and never a webhook delivery. The service worker
 * decides with {@link interceptsFetch}; the page's registration normalises the configured
 * origins with {@link normaliseApiOrigin}.
 *
 * @module
 */
import { isContractPath } from '../contract/base-path.ts';

/** The header Standard Webhooks deliveries carry (webhook delivery from the page sets it). */
export const WEBHOOK_ID_HEADER = 'webhook-id';

/** What {@link interceptsFetch} needs to know. */
export interface InterceptScope {
  /** The normalised base path, e.g. `/api`. */
  basePath: string;
  /** Foreign origins answered besides the page's own, normalised, e.g. `['https://api.example.com']`. */
  apiOrigins: readonly string[];
}

/**
 * Normalises a foreign API origin a client hard-codes (`https://api.example.com`, or the base
 * URL `https://api.example.com/api` when its path is `basePath`) to its origin. Throws when it
 * is not an http(s) URL, or names another path, a query, a fragment or credentials.
 */
export function normaliseApiOrigin(value: string, basePath: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`an API origin must be a URL such as https://api.example.com, got ${JSON.stringify(value)}`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    (path !== '' && path !== basePath) ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new Error(
      `an API origin must be an http(s) origin such as https://api.example.com (or that origin + ${basePath}), got ${JSON.stringify(value)}`,
    );
  }
  return url.origin;
}

/**
 * Whether the service worker answers `request` (else it goes to the network as if there were no
 * worker): a path the contract owns ({@link isContractPath}: not a host app's own `/api/other`),
 * on the page's own origin or one the app configured, and never a webhook delivery (a request
 * with a `webhook-id` header), whose receiver may well listen under the same path elsewhere.
 * Synchronous: the fetch handler decides before it may call `respondWith`.
 */
export function interceptsFetch(
  scope: InterceptScope,
  pageOrigin: string,
  request: { readonly url: string; readonly headers: Headers },
): boolean {
  if (request.headers.has(WEBHOOK_ID_HEADER)) return false;
  const url = new URL(request.url);
  if (url.origin !== pageOrigin && !scope.apiOrigins.includes(url.origin)) return false;
  return isContractPath(scope.basePath, url);
}
