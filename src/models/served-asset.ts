/**
 * A runtime asset (model, wasm) must be served by the app itself; when it is not, the message
 * names the fix instead of onnxruntime's "no available backend found".
 *
 * @module
 */

/** How an app serves multicam's runtime assets. */
export const SERVE_ASSETS_HINT =
  "the app must serve multicam's runtime assets: add the multicam() plugin from 'multicam/vite' to vite.config, or run `npx multicam init <publicDir>` (README, \"Use it from a web app\")";

/** The response for `url`, or an Error naming the fix when it is missing or an HTML fallback page. */
export async function fetchServed(url: string, what: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new Error(`${what} ${url} cannot be fetched (${(error as Error).message}): ${SERVE_ASSETS_HINT}`, {
      cause: error,
    });
  }
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || /text\/html/i.test(type))
    throw new Error(
      `${what} ${url} is not served (${response.ok ? 'an HTML page came back' : `HTTP ${response.status}`}): ${SERVE_ASSETS_HINT}`,
    );
  return response;
}
