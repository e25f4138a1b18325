/**
 * The review editor's link to the service: the typed client (src/client/client.ts) sending
 * `Authorization: Review <token>` (the token of a `reviewUrl`), which the routes accept for
 * this one job only. Error responses throw `ApiError` (src/contract/errors.ts) with the spec's Error body.
 *
 * @module
 */
import { MulticamClient } from '../../client/client.ts';

/** The job id a review token names (`<jobId>.<exp>.<sig>`), or null when it is not one. */
export function jobIdOfReviewToken(token: string): string | null {
  // `jobId.exp.sig`, or `jobId.exp.version.sig` since review links can be revoked.
  const parts = token.split('.');
  return (parts.length === 3 || parts.length === 4) && parts[0] !== '' ? parts[0]! : null;
}

/**
 * The client for the job a review token grants. `baseUrl`: origin plus base path, e.g.
 * `http://127.0.0.1:5173/api`.
 */
export function reviewClient(baseUrl: string, token: string): MulticamClient {
  return new MulticamClient({ baseUrl, apiKey: token, authScheme: 'Review' });
}
