/**
 * A runtime asset (model, wasm) must be served by the app itself; when it is not, the message
 * names the fix instead of onnxruntime's "no available backend found".
 *
 * @module
 */

/** How an app serves multicam's runtime assets. */
export const SERVE_ASSETS_HINT =
  "the app must serve multicam's runtime assets: add the multicam() plugin from 'multicam/vite' to vite.config, or run `npx multicam init <publicDir>` (README, \"Use it from a web app\")";

/**
 * The response for `url`, or an Error naming the fix when it is missing, an HTML fallback page,
 * or (with `type`) not of that content type.
 */
export async function fetchServed(url: string, what: string, init: RequestInit = {}, type?: RegExp): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new Error(`${what} ${url} cannot be fetched (${(error as Error).message}): ${SERVE_ASSETS_HINT}`, {
      cause: error,
    });
  }
  const got = response.headers.get('content-type') ?? '';
  const wrong = response.ok && (type ? !type.test(got) : /text\/html/i.test(got));
  if (!response.ok || wrong)
    throw new Error(
      `${what} ${url} is not served (${response.ok ? `${got || 'no content type'} came back` : `HTTP ${response.status}`}): ${SERVE_ASSETS_HINT}`,
    );
  return response;
}
