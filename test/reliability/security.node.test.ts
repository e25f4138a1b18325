/**
 * Security cases against the Node handler: cross-account access, signed URLs tampered,
 * expired or used for another source, expired review tokens, API keys stored only as
 * hashes, immediate revocation.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createNodeHarness, type NodeHarness } from '../contract/node-harness.ts';
import type { HarnessResponse } from '../contract/harness.ts';
import { dumpDatabase, expectFuzzRejected, newTally, summaryLine } from './support.ts';
import { buildWorld, caller } from './world.ts';

type Json = Record<string, any>; // response bodies read loosely, as a client would
const HOUR = 3_600_000;
const tally = newTally();

/** Replaces the character at `index` with a different one of the same class. */
function flipChar(text: string, index: number): string {
  const c = text[index]!;
  const replacement = /\d/.test(c) ? String((Number(c) + 1) % 10) : c === 'A' ? 'B' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

describe('security (Node handler)', () => {
  let h: NodeHarness;
  beforeEach(async () => {
    h = await createNodeHarness();
  });
  afterEach(async () => {
    await h.dispose();
  });
  afterAll(() => console.log(summaryLine(tally, 'node security')));

  const rejected = (r: HarnessResponse, what: string, status?: number): void => {
    expectFuzzRejected(tally, r.status, r.json, `${what} → ${r.status} ${r.text}`);
    if (status !== undefined) expect(r.status, what).toBe(status);
  };

  test("another account's key: getJob 404, complete/abort of its upload 403, nothing changed", async () => {
    const world = await buildWorld(h);
    const thief = caller(h, world.otherKey);
    const before = await dumpDatabase(h.db);
    for (const job of Object.values(world.jobs)) {
      rejected(await thief('GET', `/jobs/${job.jobId}`), 'getJob of another account', 404);
      rejected(await thief('GET', `/jobs/${job.jobId}?view=summary`), 'summary of another account', 404);
      rejected(await thief('DELETE', `/jobs/${job.jobId}`), 'deleteJob of another account', 404);
    }
    const { uploadId, key } = world.jobs['multipart']!.multipart!;
    rejected(await thief('POST', '/uploads/complete', { key, uploadId }), 'complete with another account key', 403);
    rejected(await thief('POST', '/uploads/abort', { key, uploadId }), 'abort with another account key', 403);
    expect(await dumpDatabase(h.db)).toEqual(before);
  });

  test('signed upload URLs: one flipped character of sig, path or exp, another source, expiry, other method: refused, nothing stored', async () => {
    const call = caller(h, (await h.createAccount()).apiKey);
    const created = (await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] })).json as Json;
    const [a, b] = Object.keys(created.uploads) as [string, string];
    const url = new URL(created.uploads[a].url as string);
    const sig = url.searchParams.get('sig')!;
    const exp = url.searchParams.get('exp')!;
    const before = await dumpDatabase(h.db);
    const put = (u: string, method = 'PUT'): Promise<HarnessResponse> =>
      h.request(u, { method, ...(method === 'PUT' ? { body: 'forged bytes' } : {}) });
    const variants: Array<[string, string]> = [];
    for (const i of [0, Math.floor(sig.length / 2), sig.length - 1])
      variants.push([`sig[${i}] flipped`, url.href.replace(`sig=${sig}`, `sig=${flipChar(sig, i)}`)]);
    for (const i of [0, exp.length - 1])
      variants.push([`exp[${i}] flipped`, url.href.replace(`exp=${exp}`, `exp=${flipChar(exp, i)}`)]);
    variants.push(['exp pushed a year on', url.href.replace(`exp=${exp}`, `exp=${Number(exp) + 365 * 24 * HOUR}`)]);
    variants.push(['path: job id flipped', url.href.replace(created.jobId, flipChar(created.jobId, 0))]);
    variants.push(['path: source id flipped', url.href.replace(a, flipChar(a, 3))]);
    variants.push(['path: swapped to the other source', url.href.replace(a, b)]);
    variants.push(['sig missing', url.href.replace(`&sig=${sig}`, '')]);
    variants.push(['exp missing', url.href.replace(`exp=${exp}&`, '')]);
    for (const [what, forged] of variants) {
      expect(forged, what).not.toBe(url.href);
      rejected(await put(forged), `upload URL ${what}`);
    }
    rejected(await put(url.href, 'GET'), 'upload URL used with GET');
    rejected(await put(url.href, 'DELETE'), 'upload URL used with DELETE');
    expect(await dumpDatabase(h.db)).toEqual(before);
    await h.advanceClock(HOUR + 1000);
    rejected(await put(url.href), 'upload URL after its hour');
    expect(await dumpDatabase(h.db)).toEqual(before);
  });

  test('signed download URLs: tampered, swapped to another file, expired: refused with no bytes', async () => {
    const world = await buildWorld(h);
    const call = caller(h, world.key);
    const got = (await call('GET', `/jobs/${world.jobs['complete']!.jobId}`)).json as Json;
    const [fileA, fileB] = Object.values(got.sourceUrls as Record<string, string>) as [string, string];
    const valid = await h.request(fileA);
    expect(valid.status).toBe(200);
    const url = new URL(fileA);
    const sig = url.searchParams.get('sig')!;
    const exp = url.searchParams.get('exp')!;
    const otherFileId = new URL(fileB).pathname.split('/').pop()!;
    const fileId = url.pathname.split('/').pop()!;
    const variants: Array<[string, string]> = [
      ['sig flipped', url.href.replace(`sig=${sig}`, `sig=${flipChar(sig, 5)}`)],
      ['exp flipped', url.href.replace(`exp=${exp}`, `exp=${flipChar(exp, exp.length - 2)}`)],
      ['file id flipped', url.href.replace(fileId, flipChar(fileId, 1))],
      ["swapped to the other source's file", url.href.replace(fileId, otherFileId)],
    ];
    for (const [what, forged] of variants) {
      const r = await h.request(forged);
      rejected(r, `download URL ${what}`);
      expect(r.text).not.toContain(valid.text.slice(0, 20));
    }
    await h.advanceClock(HOUR + 1000);
    rejected(await h.request(fileA), 'download URL after its hour');
  });

  test('review tokens: tampered or past 72 hours → 401; verifyReviewToken says expired', async () => {
    const world = await buildWorld(h);
    const jobId = world.jobs['mapping']!.jobId;
    const reviewUrl = ((await h.events(jobId)).find((e) => e.type === 'mapping')!.payload as Json).reviewUrl as string;
    const token = new URL(reviewUrl).searchParams.get('token')!;
    const review = (t: string, rest = `/jobs/${jobId}`): Promise<HarnessResponse> =>
      h.request(h.baseUrl + rest, { headers: { authorization: `Review ${t}` } });
    expect((await review(token)).status).toBe(200);
    const [id, exp, sig] = token.split('.') as [string, string, string];
    rejected(await review(`${world.jobs['ready']!.jobId}.${exp}.${sig}`), 'review token for another job', 401);
    rejected(await review(`${id}.${Number(exp) + HOUR}.${sig}`), 'review token with a later exp', 401);
    rejected(await review(`${id}.${exp}.${flipChar(sig, 0)}`), 'review token with a flipped sig', 401);
    rejected(await review(token, `/jobs/${world.jobs['ready']!.jobId}`), 'review token on another job path', 401);
    await h.advanceClock(72 * HOUR - 60_000);
    expect((await review(token)).status).toBe(200);
    await h.advanceClock(2 * 60_000);
    rejected(await review(token), 'review token after 72 h', 401);
    expect(await h.service.verifyReviewToken(token)).toEqual({ problem: 'expired' });
  });

  test('API keys: only SHA-256 hashes in IndexedDB, revocation immediate', async () => {
    const { accountId, apiKey } = await h.createAccount();
    const second = await h.createApiKey(accountId);
    const call = caller(h, second);
    expect((await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] })).status).toBe(200);
    const everything = Object.values(await dumpDatabase(h.db)).join('\n');
    for (const key of [apiKey, second]) {
      const secret = key.slice('mc_live_'.length);
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice(4, 20)); // not even a long slice of it
      expect(everything).toContain(createHash('sha256').update(key).digest('hex'));
    }
    // Revoked between two requests: the very next one is 401, the other key still works.
    expect((await call('GET', '/jobs')).status).toBe(200);
    await h.revokeApiKey(second);
    rejected(await call('GET', '/jobs'), 'revoked key', 401);
    rejected(await call('POST', '/jobs', { sources: [{ label: 'A' }] }), 'revoked key createJob', 401);
    expect((await caller(h, apiKey)('GET', '/jobs')).status).toBe(200);
  });
});
