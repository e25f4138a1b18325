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
const STORAGE_ERRORS = new Set([
  'QuotaExceededError',
  'InvalidStateError',
  'UnknownError',
  'VersionError',
  'AbortError',
]);

/** The Error-shape response of any thrown value; never leaks a stack. */
export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) return json(error.status, error.body, error.headers);
  const message = error instanceof Error ? error.message : String(error);
  const name =
    error instanceof Error || (typeof DOMException !== 'undefined' && error instanceof DOMException)
      ? (error as Error).name
      : '';
  // Storage that is full or gone (quota, a closed or blocked database) is 503, as the spec says.
  if (STORAGE_ERRORS.has(name))
    return json(
      503,
      { error: `storage is not available (${name}: ${message}); try again later` },
      { 'Retry-After': '30' },
    );
  return json(500, { error: `internal error: ${message}` });
}

/**
 * Largest JSON request body, in bytes. The biggest legitimate body (updateCuts on a long
 * episode) is a few hundred KB; anything larger is refused before it is read into memory.
 */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;
/** Deepest nesting of arrays and objects in a JSON body; the contract needs 4, recursion elsewhere must stay bounded. */
export const MAX_JSON_DEPTH = 64;

const tooLarge = (): ApiError => new ApiError(413, `the request body is over ${MAX_JSON_BODY_BYTES} bytes`);

/**
 * A request's body as a stream, or as a Blob where the browser gives no stream: Firefox's
 * service worker fetch events carry no `request.body` (it is undefined), so the body is read
 * whole with `blob()` there (which Firefox may keep on disk). Null when there is no body.
 */
export async function requestBody(request: Request): Promise<ReadableStream<Uint8Array> | Blob | null> {
  if (request.body !== undefined) return request.body;
  if (request.method === 'GET' || request.method === 'HEAD') return null;
  const blob = await request.blob();
  return blob.size === 0 ? null : blob;
}

/** Reads the body as text, stopping (and cancelling the stream) once it passes the limit. */
async function readBoundedText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_JSON_BODY_BYTES) throw tooLarge();
  const body = await requestBody(request);
  if (body === null) return '';
  if (body instanceof Blob) {
    if (body.size > MAX_JSON_BODY_BYTES) throw tooLarge();
    return new TextDecoder().decode(await body.arrayBuffer());
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_JSON_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Deepest bracket nesting outside strings (a linear scan, so a hostile body cannot exhaust the stack later). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** The parsed JSON body; `undefined` for an empty body; 400 for malformed or too deeply nested JSON, 413 over {@link MAX_JSON_BODY_BYTES}. */
export async function readJson(request: Request): Promise<unknown> {
  const text = await readBoundedText(request);
  if (text.trim() === '') return undefined;
  if (nestingDepth(text) > MAX_JSON_DEPTH)
    throw ApiError.badRequest(`the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
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

/** `attachment; filename="…"` with an ASCII fallback and the UTF-8 name (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
