/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): each delivery carries
 * `webhook-id`, `webhook-timestamp` and `webhook-signature`, where the signature is
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the bytes of the `whsec_`
 * secret. WebCrypto only, so the same code runs in a page, a worker, a service worker and Node.
 *
 * @module
 */

/** The prefix of every signing secret. */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** The three headers of a signed delivery. */
export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  /** Absent only if the delivery could not be signed (no secret in force). */
  'webhook-signature'?: string;
}

/** What is signed: the message id, the attempt's time and the exact raw body. */
export interface SignInput {
  /** The event id, `msg_…`; the same on every attempt. */
  id: string;
  /** When this attempt is sent, in Unix seconds (an integer). */
  timestamp: number;
  /** The raw body exactly as sent. */
  body: string;
  /** The `whsec_…` secrets in force: one, or two during a rotation. */
  secrets: readonly string[];
}

/** A signing secret that is not `whsec_` followed by non-empty base64. */
export class SigningSecretError extends Error {
  override readonly name = 'SigningSecretError';
}

/**
 * Decodes the key bytes of a `whsec_<base64>` secret (the prefix is optional, as in the
 * reference libraries).
 *
 * @throws SigningSecretError when the part after the prefix is empty or not base64.
 */
export function decodeSigningSecret(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 === 1) {
    throw new SigningSecretError(
      `signing secret must be "${SIGNING_SECRET_PREFIX}" followed by non-empty base64 (got ${encoded.length} characters after the prefix)`,
    );
  }
  const binary = atob(encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '='));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * One `v1,<base64>` signature of `id.timestamp.body` with one secret.
 *
 * @example
 * await signatureV1('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
 * // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export async function signatureV1(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  if (!Number.isInteger(timestamp))
    throw new RangeError(`timestamp must be an integer number of Unix seconds (got ${timestamp})`);
  const key = await crypto.subtle.importKey(
    'raw',
    decodeSigningSecret(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/**
 * The value of the `webhook-signature` header: one `v1,` signature per secret in force,
 * space-separated, so a receiver holding either the old or the new secret accepts during a
 * rotation. Returns `null` when there is no secret (the header is then left out).
 */
export async function signatureHeader(input: SignInput): Promise<string | null> {
  if (input.secrets.length === 0) return null;
  const signatures = await Promise.all(
    input.secrets.map((secret) => signatureV1(secret, input.id, input.timestamp, input.body)),
  );
  return signatures.join(' ');
}

/** The three Standard Webhooks headers of one attempt. */
export async function signWebhook(input: SignInput): Promise<WebhookSignatureHeaders> {
  const signature = await signatureHeader(input);
  const headers: WebhookSignatureHeaders = { 'webhook-id': input.id, 'webhook-timestamp': String(input.timestamp) };
  if (signature !== null) headers['webhook-signature'] = signature;
  return headers;
}
