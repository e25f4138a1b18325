/**
 * Response helpers: JSON bodies, the Error shape, and reading JSON request bodies.
 *
 * @module
 */
import { ApiError } from '../contract/errors.ts';

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** DOMException names of IndexedDB failures that mean the storage, not the request, is at fault. */
const STORAGE_ERRORS = new Set(['QuotaExceededError', 'InvalidStateError', 'UnknownError', 'VersionError', 'AbortError']);

/** The Error-shape response of any thrown value; never leaks a stack. */
export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) return json(error.status, error.body, error.headers);
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error || (typeof DOMException !== 'undefined' && error instanceof DOMException) ? (error as Error).name : '';
  // Storage that is full or gone (quota, a closed or blocked database) is 503, as the spec says.
  if (STORAGE_ERRORS.has(name)) return json(503, { error: `storage is not available (${name}: ${message}); try again later` }, { 'Retry-After': '30' });
  return json(500, { error: `internal error: ${message}` });
}

/** The parsed JSON body; `undefined` for an empty body; 400 for malformed JSON. */
export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw ApiError.badRequest('the request body is not valid JSON');
  }
}

/** JSON with object keys sorted, so equal bodies compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
