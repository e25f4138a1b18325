import { describe, expect, test } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  decodeSigningSecret,
  signatureHeader,
  signatureV1,
  signWebhook,
  SigningSecretError,
} from '../../../src/webhooks/sign.ts';
import { newSigningSecret } from './outbox-fixture.ts';

// Known vectors of the standard-webhooks reference library (libraries/javascript/src/webhook.test.ts,
// "sign function works") and the secret it uses throughout.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signing (WebCrypto)', () => {
  test('reproduces the reference library test vector, with and without the whsec_ prefix', async () => {
    expect(await signatureV1(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(await signatureV1(VECTOR.secret.slice('whsec_'.length), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    );
    // The official library agrees on the same input.
    const reference = new Webhook(VECTOR.secret).sign(VECTOR.id, new Date(VECTOR.timestamp * 1000), VECTOR.body);
    expect(reference).toBe(VECTOR.signature);
  });

  test('a changed byte of id, timestamp or body changes the signature', async () => {
    const base = await signatureV1(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body);
    expect(await signatureV1(VECTOR.secret, VECTOR.id + 'x', VECTOR.timestamp, VECTOR.body)).not.toBe(base);
    expect(await signatureV1(VECTOR.secret, VECTOR.id, VECTOR.timestamp + 1, VECTOR.body)).not.toBe(base);
    expect(await signatureV1(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body.replace('2', '3'))).not.toBe(base);
  });

  test('headers of a fresh delivery pass the official verifier and return the body', async () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ jobId: 'j1', status: 'ready', reviewUrl: 'http://127.0.0.1/review/?token=t' });
    const headers = await signWebhook({
      id: 'msg_abc',
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    });
    expect(headers['webhook-id']).toBe('msg_abc');
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSigningSecret()).verify(body, { ...headers })).toThrow(WebhookVerificationError);
    // Verification is over the raw body: re-serialised JSON with other spacing fails.
    expect(() => new Webhook(secret).verify(JSON.stringify(JSON.parse(body), null, 1), { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  test('during a rotation the header carries two signatures and either secret verifies', async () => {
    const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
    const body = '{"jobId":"j","status":"approved","outputUrl":"u"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const header = await signatureHeader({ id: 'msg_rot', timestamp, body, secrets: [oldSecret, newSecret] });
    expect(header?.split(' ')).toHaveLength(2);
    expect(header?.split(' ').every((part) => part.startsWith('v1,'))).toBe(true);
    const headers = {
      'webhook-id': 'msg_rot',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': header ?? '',
    };
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  test('no secret in force: the signature header is left out', async () => {
    const headers = await signWebhook({ id: 'msg_x', timestamp: 1, body: '{}', secrets: [] });
    expect(headers).toEqual({ 'webhook-id': 'msg_x', 'webhook-timestamp': '1' });
  });

  test('malformed secrets and timestamps are refused with a message naming the problem', async () => {
    expect(() => decodeSigningSecret('whsec_')).toThrow(SigningSecretError);
    expect(() => decodeSigningSecret('whsec_not base64!')).toThrow(/followed by non-empty base64/);
    expect(Array.from(decodeSigningSecret('whsec_AAEC'))).toEqual([0, 1, 2]);
    await expect(signatureV1(VECTOR.secret, 'msg', 1.5, '{}')).rejects.toThrow(/timestamp must be an integer/);
  });
});
