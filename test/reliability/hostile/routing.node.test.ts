/**
 * Hostile routing and review-link cases against the Node handler (issue 48): a review token
 * cannot mint itself a longer life through the summary, a job's review links can be revoked,
 * links meant for a person are built on the page's origin (not a foreign base the client
 * hard-coded), and the service worker answers only what the contract owns on the origins the
 * app named.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';
import type { HarnessResponse } from '../../contract/harness.ts';
import { URL_SIGNING_KEY, newUrlSigningKey } from '../../../src/auth/signer.ts';
import { hmacBase64Url, importHmacKey } from '../../../src/auth/crypto.ts';
import { getOrCreateMeta } from '../../../src/store/meta.ts';
import { interceptsFetch, normaliseApiOrigin } from '../../../src/routes/scope.ts';
import { buildWorld, caller } from '../world.ts';

type Json = Record<string, any>; // response bodies read loosely, as a client would
const HOUR = 3_600_000;

const tokenOf = (link: string): string => new URL(link).searchParams.get('token')!;

describe('review links (Node handler)', () => {
  let h: NodeHarness;
  afterEach(async () => {
    await h?.dispose();
  });

  const asReviewer = (token: string, rest: string, method = 'GET'): Promise<HarnessResponse> =>
    h.request(h.baseUrl + rest, { method, headers: { authorization: `Review ${token}` } });

  test('a review caller reading the summary gets no fresh link: a chained token dies 72 h after the first', async () => {
    h = await createNodeHarness();
    const world = await buildWorld(h);
    const jobId = world.jobs['mapping']!.jobId;
    const first = tokenOf((await h.events(jobId)).find((e) => e.type === 'mapping')!.payload['reviewUrl'] as string);

    // Every 24 h the reviewer reads the summary and switches to whatever link it shows.
    let held = first;
    for (let hour = 0; hour < 72; hour += 24) {
      const summary = await asReviewer(held, `/jobs/${jobId}?view=summary`);
      expect(summary.status, summary.text).toBe(200);
      const shown = (summary.json as Json).nextAction.url as string;
      expect(shown).toMatch(/\/review\/\?token=/);
      expect(tokenOf(shown), 'the summary hands a review caller its own link back').toBe(first);
      held = tokenOf(shown);
      await h.advanceClock(24 * HOUR);
    }
    await h.advanceClock(HOUR); // 73 h after the first link was minted
    const late = await asReviewer(held, `/jobs/${jobId}?view=summary`);
    expect(late.status, late.text).toBe(401);

    // An API-key caller still gets a fresh 72 h link.
    const owner = await caller(h, world.key)('GET', `/jobs/${jobId}?view=summary`);
    const fresh = tokenOf((owner.json as Json).nextAction.url as string);
    expect(fresh).not.toBe(first);
    expect((await asReviewer(fresh, `/jobs/${jobId}`)).status).toBe(200);
  });

  test('revoking a job’s review links: earlier tokens (old format too) 401, a link minted after works; API key only', async () => {
    h = await createNodeHarness();
    const world = await buildWorld(h);
    const jobId = world.jobs['mapping']!.jobId;
    const otherJobId = world.jobs['ready']!.jobId;
    const owner = caller(h, world.key);
    const earlier = tokenOf((await h.events(jobId)).find((e) => e.type === 'mapping')!.payload['reviewUrl'] as string);
    const otherToken = tokenOf(((await owner('GET', `/jobs/${otherJobId}?view=summary`)).json as Json).nextAction.url);

    // A token in the format before versions (jobId.exp.sig) counts as version 0.
    const secret = String(await getOrCreateMeta(h.db, URL_SIGNING_KEY, newUrlSigningKey));
    const key = await importHmacKey(new TextEncoder().encode(secret));
    const exp = String(Date.UTC(2026, 0, 2));
    const oldFormat = `${jobId}.${exp}.${await hmacBase64Url(key, `review\n${jobId}\n${exp}`)}`;
    expect((await asReviewer(earlier, `/jobs/${jobId}`)).status).toBe(200);
    expect((await asReviewer(oldFormat, `/jobs/${jobId}`)).status).toBe(200);

    // Only the account may revoke: not a review caller, not another account.
    expect((await asReviewer(earlier, `/jobs/${jobId}/review-links/revoke`, 'POST')).status).toBe(401);
    expect((await caller(h, world.otherKey)('POST', `/jobs/${jobId}/review-links/revoke`)).status).toBe(404);
    expect((await asReviewer(earlier, `/jobs/${jobId}`)).status).toBe(200);

    const revoked = await owner('POST', `/jobs/${jobId}/review-links/revoke`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.json).toEqual({ ok: true });
    for (const token of [earlier, oldFormat]) {
      const r = await asReviewer(token, `/jobs/${jobId}`);
      expect(r.status, r.text).toBe(401);
      expect((r.json as Json).error).toEqual(expect.any(String));
    }
    expect(await h.service.verifyReviewToken(earlier)).toEqual({ problem: 'invalid' });
    // Another job's links are untouched.
    expect((await asReviewer(otherToken, `/jobs/${otherJobId}`)).status).toBe(200);

    const after = tokenOf(((await owner('GET', `/jobs/${jobId}?view=summary`)).json as Json).nextAction.url);
    expect((await asReviewer(after, `/jobs/${jobId}?view=summary`)).status).toBe(200);
    expect(await h.service.verifyReviewToken(after)).toEqual({ jobId });
    expect((await owner('POST', `/jobs/no-such-job/review-links/revoke`)).status).toBe(404);
  });
});

describe('links follow the page origin (Node handler)', () => {
  let h: NodeHarness;
  afterEach(async () => {
    await h?.dispose();
  });

  test('a request to a foreign base gets review, download and upload links on the page origin', async () => {
    const pageOrigin = 'http://127.0.0.1:5173';
    h = await createNodeHarness({ baseUrl: 'https://api.example.com/api', pageOrigin });
    const world = await buildWorld(h);
    const call = caller(h, world.key);
    const onPage = (link: unknown): void => {
      expect(typeof link === 'string' && new URL(link).origin, String(link)).toBe(pageOrigin);
    };

    const created = (await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] })).json as Json;
    for (const upload of Object.values<Json>(created.uploads)) onPage(upload.url);

    const mappingId = world.jobs['mapping']!.jobId;
    onPage(((await call('GET', `/jobs/${mappingId}?view=summary`)).json as Json).nextAction.url);
    onPage((await h.events(mappingId)).find((e) => e.type === 'mapping')!.payload['reviewUrl']);
    const full = (await call('GET', `/jobs/${mappingId}`)).json as Json;
    for (const link of Object.values(full.sourceUrls as Json)) onPage(link);

    const completeId = world.jobs['complete']!.jobId;
    const done = (await call('GET', `/jobs/${completeId}`)).json as Json;
    onPage(done.job.output_url);
    onPage(((await call('GET', `/jobs/${completeId}?view=summary`)).json as Json).outputUrl);
    const event = (await h.events(completeId)).find((e) => e.type === 'complete')!;
    onPage(event.payload['outputUrl'] ?? event.payload['output_url']);
  });
});

describe('what the service worker intercepts', () => {
  test('service.owns: the contract’s own paths only; a host app’s /api/other is not owned', async () => {
    const h = await createNodeHarness({ baseUrl: 'http://127.0.0.1:5173/api' });
    try {
      for (const path of ['/api/jobs', '/api/jobs/job_1?view=summary', '/api/uploads/complete', '/api/signed/files/f'])
        expect(h.service.owns(new URL(path, 'http://127.0.0.1:5173')), path).toBe(true);
      for (const path of ['/api/other', '/api/webhooks', '/api', '/api/', '/apiary/jobs', '/jobs'])
        expect(h.service.owns(new URL(path, 'http://127.0.0.1:5173')), path).toBe(false);
    } finally {
      await h.dispose();
    }
  });

  test('the page’s origin and configured foreign bases only, never a webhook delivery', () => {
    const page = 'http://127.0.0.1:5173';
    const config = { basePath: '/api', apiOrigins: [normaliseApiOrigin('https://API.example.com:443/api/', '/api')] };
    expect(config.apiOrigins).toEqual(['https://api.example.com']);
    const intercepts = (url: string, headers: Record<string, string> = {}): boolean =>
      interceptsFetch(config, page, new Request(url, { headers }));
    expect(intercepts(`${page}/api/jobs`)).toBe(true);
    expect(intercepts('https://api.example.com/api/jobs')).toBe(true);
    expect(intercepts('https://hooks.example.com/api/webhooks')).toBe(false);
    expect(intercepts('https://hooks.example.com/api/jobs')).toBe(false);
    expect(intercepts(`${page}/api/other`)).toBe(false);
    expect(intercepts('https://api.example.com/api/jobs', { 'webhook-id': 'msg_1' })).toBe(false);
    expect(intercepts(`${page}/api/jobs`, { 'webhook-id': 'msg_1' })).toBe(false);
    // Without configured origins, only the page's own.
    const plain = { basePath: '/api', apiOrigins: [] };
    expect(interceptsFetch(plain, page, new Request('https://api.example.com/api/jobs'))).toBe(false);
    for (const bad of [
      'not-a-url',
      'ftp://api.example.com',
      'https://api.example.com/v2',
      'https://api.example.com/?x=1',
    ])
      expect(() => normaliseApiOrigin(bad, '/api'), bad).toThrow(/API origin/);
  });
});
