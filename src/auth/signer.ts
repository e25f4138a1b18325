/**
 * Signed URLs and review tokens: HMAC-SHA256 with an installation secret kept in IndexedDB
 * (the caller reads or creates it under {@link URL_SIGNING_KEY} in the `meta` store and passes
 * it in), so the service worker and every page of the origin sign and verify alike. A signed
 * URL covers the method, the path and the expiry; the origin is left out so the same URL works
 * under a foreign base URL.
 *
 * @module
 */
import { hmacBase64Url, importHmacKey, randomBytes, timingSafeEqual, toBase64Url } from './crypto.ts';

/** Why a signed URL or token was refused. */
export type SignatureProblem = 'missing' | 'expired' | 'invalid';

/** Signs and verifies URLs and review tokens with the installation secret. */
export interface Signer {
  /** `?exp=…&sig=…` for `method` on `path`, valid until `expiresAt` (ms). */
  signQuery(method: string, path: string, expiresAt: number): Promise<string>;
  /** Checks `exp` and `sig` of a URL for `method`; null when valid. */
  verifyUrl(method: string, url: URL, now: number): Promise<SignatureProblem | null>;
  /**
   * A review token for the hosted editor: `jobId.exp.version.sig`, the job's review-token
   * `version` signed in, so bumping the job's version revokes every earlier token.
   */
  reviewToken(jobId: string, expiresAt: number, version: number): Promise<string>;
  /**
   * The job id and signed version of a valid review token, else the problem. A token in the
   * format before versions (`jobId.exp.sig`) is version 0. The caller compares the version
   * with the job's.
   */
  verifyReviewToken(
    token: string,
    now: number,
  ): Promise<{ jobId: string; version: number } | { problem: SignatureProblem }>;
}

const canonical = (method: string, path: string, exp: string): string => `${method.toUpperCase()}\n${path}\n${exp}`;

/** The `meta` store key of the installation's URL signing secret. */
export const URL_SIGNING_KEY = 'urlSigningKey';

/** A new URL signing secret (32 random bytes, base64url), stored on first use. */
export function newUrlSigningKey(): string {
  return toBase64Url(randomBytes(32));
}

/** The signer for the installation secret `secret` (stored under {@link URL_SIGNING_KEY}). */
export async function createSigner(secret: string): Promise<Signer> {
  const key = await importHmacKey(new TextEncoder().encode(secret));

  async function check(
    text: string,
    sig: string | null,
    exp: string | null,
    now: number,
  ): Promise<SignatureProblem | null> {
    if (sig === null || exp === null || sig === '' || exp === '') return 'missing';
    if (!/^\d+$/.test(exp)) return 'invalid';
    const expected = await hmacBase64Url(key, text);
    if (!timingSafeEqual(expected, sig)) return 'invalid';
    if (Number(exp) < now) return 'expired';
    return null;
  }

  return {
    async signQuery(method, path, expiresAt) {
      const exp = String(Math.floor(expiresAt));
      return `?exp=${exp}&sig=${await hmacBase64Url(key, canonical(method, path, exp))}`;
    },
    async verifyUrl(method, url, now) {
      const exp = url.searchParams.get('exp');
      // HEAD is answered like GET, so a GET signature covers it.
      const signedMethod = method.toUpperCase() === 'HEAD' ? 'GET' : method;
      return check(canonical(signedMethod, url.pathname, exp ?? ''), url.searchParams.get('sig'), exp, now);
    },
    async reviewToken(jobId, expiresAt, version) {
      const exp = String(Math.floor(expiresAt));
      const v = String(Math.floor(version));
      return `${jobId}.${exp}.${v}.${await hmacBase64Url(key, `review\n${jobId}\n${exp}\n${v}`)}`;
    },
    async verifyReviewToken(token, now) {
      const parts = token.split('.');
      // jobId.exp.sig (before versions: version 0) or jobId.exp.version.sig. The two signed texts
      // cannot be confused: exp and version must be digits and the job id holds no whitespace.
      if (/\s/.test(parts[0] ?? '')) return { problem: 'invalid' };
      if (parts.length === 3) {
        const [jobId, exp, sig] = parts as [string, string, string];
        const problem = await check(`review\n${jobId}\n${exp}`, sig, exp, now);
        return problem === null ? { jobId, version: 0 } : { problem };
      }
      if (parts.length < 3) return { problem: 'missing' };
      if (parts.length > 4) return { problem: 'invalid' };
      const [jobId, exp, version, sig] = parts as [string, string, string, string];
      if (!/^\d+$/.test(version)) return { problem: 'invalid' };
      const problem = await check(`review\n${jobId}\n${exp}\n${version}`, sig, exp, now);
      return problem === null ? { jobId, version: Number(version) } : { problem };
    },
  };
}
