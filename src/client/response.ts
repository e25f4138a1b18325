/**
 * Reading a response of the contract: the JSON body of a success, or an {@link ApiError}
 * carrying the spec's Error body (and the response headers, e.g. `Retry-After`) for a
 * failure. Shared by the typed client and the review editor so both report errors alike.
 *
 * @module
 */
import { ApiError } from '../contract/errors.ts';
import type { ErrorBody } from '../contract/types.ts';

/** The response headers as a plain object (lower-case names). */
export function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  return headers;
}

/**
 * The parsed JSON body of `response` (null when empty or not JSON); throws
 * {@link ApiError} when the status is not 2xx. A failure without the spec's Error body
 * becomes one whose `error` is the body text, else the status text, else `HTTP <status>`.
 *
 * @example
 * const job = await readApiResponse<GetJobResponse>(await fetch(`${base}/jobs/${id}`, { headers }));
 */
export async function readApiResponse<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw apiErrorOf(response, text);
  return parseJsonOrNull(text) as T;
}

/**
 * The {@link ApiError} for a failed `response` whose body text is `text` (already read): the
 * spec's Error body when the text is one, else an Error body whose `error` is the text, the
 * status text, or `HTTP <status>`.
 */
export function apiErrorOf(response: Response, text: string): ApiError {
  const parsed = parseJsonOrNull(text);
  const errorBody: ErrorBody =
    parsed !== null && typeof parsed === 'object' && typeof (parsed as ErrorBody).error === 'string'
      ? (parsed as ErrorBody)
      : { error: text || response.statusText || `HTTP ${response.status}` };
  return ApiError.fromResponse(response.status, errorBody, headersOf(response));
}

function parseJsonOrNull(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
