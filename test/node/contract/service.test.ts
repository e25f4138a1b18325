/**
 * Node-only checks of the service behind the contract: accounts and keys, signing secrets,
 * the engine refusing work (502), the outbox records, chunked storage, review tokens, reports
 * that arrive late, and what speaker detection measured of the mix reaching the planner.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { CHUNK_SIZE, chunkBlob } from '../../../src/store/files.ts';
import { claimIdempotencyKey, STALE_CLAIM_MS } from '../../../src/store/idempotency.ts';
import { canonicalJson } from '../../../src/routes/http.ts';
import { sha256Hex } from '../../../src/auth/crypto.ts';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';

let h: NodeHarness;
afterEach(async () => h?.dispose());

type Json = Record<string, any>; // loosely typed on purpose: the tests read response bodies as a client would

async function setup(): Promise<{ apiKey: string; accountId: string }> {
  h = await createNodeHarness();
  return h.service.accounts.create({ name: 'test' });
}

async function call(
  apiKey: string,
  method: string,
  rest: string,
  json?: unknown,
): Promise<{ status: number; body: Json; headers: Record<string, string> }> {
  const r = await h.request(`${h.baseUrl}${rest}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}` },
    ...(json === undefined ? {} : { json }),
  });
  return { status: r.status, body: r.json as Json, headers: r.headers };
}

/** A job with two uploaded sources, processing started. */
async function processing(apiKey: string, extra: Json = {}): Promise<{ jobId: string; ids: string[] }> {
  const created = await call(apiKey, 'POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }], ...extra });
  for (const up of Object.values<Json>(created.body.uploads))
    expect((await h.request(up.url, { method: 'PUT', body: 'bytes' })).status).toBe(200);
  expect((await call(apiKey, 'POST', `/jobs/${created.body.jobId}/process`)).status).toBe(200);
  return { jobId: created.body.jobId, ids: Object.keys(created.body.uploads) };
}

describe('accounts', () => {
  test('API keys: prefix, stored only as SHA-256, listed, revoked by key id at once', async () => {
    const { apiKey, accountId } = await setup();
    expect(apiKey).toMatch(/^mc_live_[A-Za-z0-9_-]{32}$/);
    const stored = await h.db.getAll('apiKeys');
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect(stored[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    const second = await h.service.accounts.createApiKey(accountId);
    const keys = await h.service.accounts.listApiKeys(accountId);
    expect(keys.map((k) => k.keyId)).toContain(second.keyId);
    expect(keys.every((k) => k.prefix.startsWith('mc_live_') && k.revokedAt === null)).toBe(true);
    await h.service.accounts.revokeApiKey(second.keyId);
    expect((await call(second.apiKey, 'GET', '/jobs')).status).toBe(401);
    expect(
      (await h.service.accounts.listApiKeys(accountId)).find((k) => k.keyId === second.keyId)?.revokedAt,
    ).not.toBeNull();
    expect((await call(apiKey, 'GET', '/jobs')).status).toBe(200);
    await expect(h.service.accounts.revokeApiKey('key_unknown')).rejects.toThrow();
    await expect(h.service.accounts.createApiKey('acc_unknown')).rejects.toThrow();
  });

  test('quota and usage in input minutes', async () => {
    const { apiKey, accountId } = await setup();
    expect(await h.service.accounts.usage(accountId)).toEqual({ usedMinutes: 0, quotaMinutes: null });
    const { jobId, ids } = await processing(apiKey);
    await h.engine.complete(jobId, 'syncing', { durationsMs: { [ids[0]!]: 90_000, [ids[1]!]: 30_000 } });
    expect(await h.service.accounts.usage(accountId)).toEqual({ usedMinutes: 2, quotaMinutes: null });
    await h.service.accounts.setQuota(accountId, 2);
    expect((await call(apiKey, 'POST', '/jobs', { sources: [] })).body.code).toBe('QUOTA_EXCEEDED');
    await h.service.accounts.setQuota(accountId, null);
    expect((await call(apiKey, 'POST', '/jobs', { sources: [] })).status).toBe(200);
    await expect(h.service.accounts.setQuota(accountId, -1)).rejects.toThrow();
  });

  test('webhook signing secrets: whsec_<base64>, rotation keeps the old one for the overlap', async () => {
    const { accountId } = await setup();
    const [first] = await h.service.accounts.signingSecrets(accountId);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(atob(first!.slice(6)).length).toBe(24);
    const next = await h.service.accounts.rotateSigningSecret(accountId, { overlapMs: 60_000 });
    expect(await h.service.accounts.signingSecrets(accountId)).toEqual([next, first]);
    await h.advanceClock(60_001);
    expect(await h.service.accounts.signingSecrets(accountId)).toEqual([next]);
  });
});

describe('storage', () => {
  test('createJob refuses files that cannot fit (507 INSUFFICIENT_STORAGE, nothing created); without sizes or room it goes on', async () => {
    let usage = 9e9;
    h = await createNodeHarness({ storageEstimate: async () => ({ quota: 10e9, usage }) });
    const { apiKey } = await h.service.accounts.create({ name: 'test' });
    const sources = [
      { label: 'A', fileSize: 500e6 },
      { label: 'B', fileSize: 500e6 },
    ];
    const full = await call(apiKey, 'POST', '/jobs', { sources });
    expect(full.status).toBe(507);
    // The files, a quarter more for the render and a tenth of the cameras for their proxies.
    expect(full.body).toMatchObject({ code: 'INSUFFICIENT_STORAGE', neededBytes: 1.35e9, availableBytes: 1e9 });
    expect(full.body.error).toMatch(/can store 1\.0 GB more .* needs about 1\.4 GB .*render and the proxies/);
    expect(await h.db.count('jobs')).toBe(0);
    // With an Idempotency-Key the key is not used up by the refusal.
    const keyed = await h.request(`${h.baseUrl}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'k1' },
      json: { sources },
    });
    expect(keyed.status).toBe(507);
    usage = 1e9;
    const later = await h.request(`${h.baseUrl}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'k1' },
      json: { sources },
    });
    expect(later.status, later.text).toBe(200);
    // Undeclared sizes are not counted.
    usage = 10e9;
    expect((await call(apiKey, 'POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] })).status).toBe(200);
  });
});

describe('idempotency claims', () => {
  test('a key claimed by a request still running is 409 IDEMPOTENCY_IN_PROGRESS with Retry-After; an abandoned claim is taken over', async () => {
    const { apiKey, accountId } = await setup();
    const body = { sources: [{ label: 'A' }] };
    // Another request has claimed the key and not finished.
    expect(
      await claimIdempotencyKey(h.db, accountId, 'busy', await sha256Hex(canonicalJson(body)), Date.UTC(2026, 0, 1)),
    ).toEqual({ kind: 'claimed' });
    const r = await h.request(`${h.baseUrl}/jobs`, {
      method: 'POST',
      json: body,
      headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'busy' },
    });
    expect(r.status).toBe(409);
    expect((r.json as Json).code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(r.headers['retry-after']).toBe('1');
    expect((await call(apiKey, 'GET', '/jobs')).body.jobs).toEqual([]);
    await h.advanceClock(STALE_CLAIM_MS);
    const later = await h.request(`${h.baseUrl}/jobs`, {
      method: 'POST',
      json: body,
      headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'busy' },
    });
    expect(later.status).toBe(200);
  });
});

describe('engine boundary', () => {
  test('an engine that cannot start syncing: 502, the job is failed with the failed event', async () => {
    const { apiKey } = await setup();
    h.engine.refuseNext = 'syncing';
    const created = await call(apiKey, 'POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] });
    for (const up of Object.values<Json>(created.body.uploads)) await h.request(up.url, { method: 'PUT', body: 'x' });
    const r = await call(apiKey, 'POST', `/jobs/${created.body.jobId}/process`);
    expect(r.status).toBe(502);
    expect(typeof r.body.error).toBe('string');
    const summary = (await call(apiKey, 'GET', `/jobs/${created.body.jobId}?view=summary`)).body;
    expect(summary).toMatchObject({ status: 'failed', failedAtStatus: 'syncing' });
    expect((await h.events(created.body.jobId)).map((e) => e.type)).toEqual(['failed']);
  });

  test('an engine that cannot start the render: 502, failed at rendering, retry works', async () => {
    const { apiKey } = await setup();
    const { jobId, ids } = await processing(apiKey, { autoMap: 'off' });
    await h.engine.complete(jobId, 'syncing', { durationsMs: { [ids[0]!]: 60_000, [ids[1]!]: 60_000 } });
    await h.engine.complete(jobId, 'diarizing');
    expect(
      (
        await call(apiKey, 'POST', `/jobs/${jobId}/tracks`, {
          tracks: [{ sourceId: ids[0], speakers: ['SPEAKER_00', 'SPEAKER_01'] }],
        })
      ).status,
    ).toBe(200);
    h.engine.refuseNext = 'rendering';
    expect((await call(apiKey, 'POST', `/jobs/${jobId}/render`)).status).toBe(502);
    expect((await call(apiKey, 'GET', `/jobs/${jobId}?view=summary`)).body).toMatchObject({
      status: 'failed',
      failedAtStatus: 'rendering',
    });
    expect((await call(apiKey, 'POST', `/jobs/${jobId}/retry`)).body).toEqual({ jobId, status: 'rendering' });
  });

  test('late reports are ignored; a render finishing after deleteJob leaves no bytes behind', async () => {
    const { apiKey } = await setup();
    const { jobId } = await processing(apiKey);
    await h.service.reporter.stageSucceeded(jobId, 'rendering', { output: new Blob(['stray']) });
    await h.service.reporter.stageFailed(jobId, 'diarizing', { message: 'stale' });
    expect((await call(apiKey, 'GET', `/jobs/${jobId}?view=summary`)).body.status).toBe('syncing');
    expect(await h.db.count('files')).toBe(2);
    expect((await call(apiKey, 'DELETE', `/jobs/${jobId}`)).status).toBe(200);
    expect(h.engine.cancelled).toEqual([jobId]);
    await h.service.reporter.stageSucceeded(jobId, 'syncing', { durationsMs: {} });
    await h.service.reporter.stageSucceeded(jobId, 'rendering', { output: new Blob(['late render']) });
    expect(await h.db.count('files')).toBe(0);
    expect(await h.db.count('chunks')).toBe(0);
  });

  test('render progress shows in the summary while rendering', async () => {
    const { apiKey } = await setup();
    const { jobId, ids } = await processing(apiKey, { autoMap: 'off' });
    await h.engine.complete(jobId, 'syncing', { durationsMs: { [ids[0]!]: 60_000, [ids[1]!]: 60_000 } });
    await h.engine.complete(jobId, 'diarizing');
    await call(apiKey, 'POST', `/jobs/${jobId}/tracks`, {
      tracks: [
        { sourceId: ids[0], speakers: ['SPEAKER_00'] },
        { sourceId: ids[1], speakers: ['SPEAKER_01'] },
      ],
    });
    await call(apiKey, 'POST', `/jobs/${jobId}/render`);
    await h.service.reporter.setProgress(jobId, 0.42);
    expect((await call(apiKey, 'GET', `/jobs/${jobId}?view=summary`)).body.progress).toBe(0.42);
    await h.service.reporter.setProgress(jobId, 7);
    expect((await call(apiKey, 'GET', `/jobs/${jobId}?view=summary`)).body.progress).toBe(1);
    expect((await call(apiKey, 'GET', `/jobs/${jobId}?view=summary`)).body.stageProgress).toBe(1);
  });

  test("every analysis stage shows its fraction as stageProgress (additive) while it runs; progress stays the render's", async () => {
    const { apiKey } = await setup();
    const { jobId, ids } = await processing(apiKey, { autoMap: 'confident' });
    const summary = async (): Promise<Json> => (await call(apiKey, 'GET', `/jobs/${jobId}?view=summary`)).body;
    expect(await summary()).toMatchObject({ status: 'syncing', progress: null, stageProgress: null });
    await h.service.reporter.setProgress(jobId, 0.5, 'syncing');
    expect(await summary()).toMatchObject({ status: 'syncing', progress: null, stageProgress: 0.5 });
    // A report for a stage the job is not in is ignored.
    await h.service.reporter.setProgress(jobId, 0.9, 'mapping');
    expect((await summary()).stageProgress).toBe(0.5);
    await h.engine.complete(jobId, 'syncing', { durationsMs: { [ids[0]!]: 60_000, [ids[1]!]: 60_000 } });
    expect(await summary()).toMatchObject({ status: 'diarizing', stageProgress: null });
    await h.service.reporter.setProgress(jobId, 0.25, 'diarizing');
    expect((await summary()).stageProgress).toBe(0.25);
    await h.engine.complete(jobId, 'diarizing');
    expect(await summary()).toMatchObject({ status: 'mapping', stageProgress: null });
    await h.service.reporter.setProgress(jobId, 0.6, 'mapping');
    expect((await summary()).stageProgress).toBe(0.6);
    // The camera map is in (no proposal: the person is asked): the stage is over, nothing runs.
    await h.engine.complete(jobId, 'mapping', { cameraMap: null });
    expect(await summary()).toMatchObject({ status: 'mapping', stageProgress: null });
    await h.service.reporter.setProgress(jobId, 0.7, 'mapping');
    expect((await summary()).stageProgress).toBeNull();
  });
});

describe('what speaker detection measures of the mix', () => {
  test('kept on the job as the diarizing stage reported it, recutJob removes silence only inside its quiet ranges', async () => {
    const { apiKey } = await setup();
    const turns = [
      { speaker: 'SPEAKER_00', startMs: 0, endMs: 10_000 },
      { speaker: 'SPEAKER_01', startMs: 13_000, endMs: 25_000 },
      { speaker: 'SPEAKER_00', startMs: 28_000, endMs: 60_000 },
    ];
    // Both pauses between turns are quiet to speaker detection; the audio is quiet in the first only.
    const quiet = { startMs: 10_000, endMs: 13_000 };
    const recut = async (mix: boolean): Promise<Json> => {
      const { jobId, ids } = await processing(apiKey, { autoMap: 'off' });
      await h.engine.complete(jobId, 'syncing', { durationsMs: { [ids[0]!]: 60_000, [ids[1]!]: 60_000 } });
      await h.service.reporter.stageSucceeded(jobId, 'diarizing', {
        turns,
        ...(mix ? { mix: { quietRanges: [quiet] } } : {}),
      });
      const tracks = ids.map((sourceId, k) => ({ sourceId, speakers: [`SPEAKER_0${k}`] }));
      expect((await call(apiKey, 'POST', `/jobs/${jobId}/tracks`, { tracks })).status).toBe(200);
      const r = await call(apiKey, 'POST', `/jobs/${jobId}/recut`, {
        presetId: 'balanced',
        silence: { mode: 'remove', minPauseSec: 0.5 },
      });
      expect(r.status).toBe(200);
      return r.body;
    };
    const measured = await recut(true);
    expect(measured.removedRanges.length).toBe(1);
    expect(measured.removedRanges[0].startMs).toBeGreaterThanOrEqual(quiet.startMs);
    expect(measured.removedRanges[0].endMs).toBeLessThanOrEqual(quiet.endMs);
    expect(measured.savedMs).toBeGreaterThan(0);
    // Without the measures (a job from before they were kept) nothing is removed.
    expect((await recut(false)).savedMs).toBe(0);
  });
});

describe('events outbox', () => {
  test('records carry the architecture shape; skipped without callbackUrl, pending with one', async () => {
    const { apiKey, accountId } = await setup();
    const quiet = await processing(apiKey, { autoMap: 'off' });
    const hooked = await processing(apiKey, { autoMap: 'off', callbackUrl: 'https://hooks.example.com/in' });
    for (const job of [quiet, hooked]) {
      await h.engine.complete(job.jobId, 'syncing');
      await h.engine.complete(job.jobId, 'diarizing');
    }
    const [a] = await h.db.getAllFromIndex('events', 'by-job', quiet.jobId);
    const [b] = await h.db.getAllFromIndex('events', 'by-job', hooked.jobId);
    expect(a).toMatchObject({
      accountId,
      jobId: quiet.jobId,
      type: 'mapping',
      callbackUrl: null,
      delivery: { state: 'skipped', attempts: 0, log: [] },
    });
    expect(b).toMatchObject({
      accountId,
      jobId: hooked.jobId,
      type: 'mapping',
      callbackUrl: 'https://hooks.example.com/in',
      delivery: { state: 'pending', attempts: 0, log: [] },
    });
    expect(b!.id).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(b!.delivery.nextAttemptAt).toBe(b!.createdAt);
  });

  test('review tokens in reviewUrl verify for 72 hours and not when tampered', async () => {
    const { apiKey } = await setup();
    const { jobId } = await processing(apiKey, { autoMap: 'off' });
    await h.engine.complete(jobId, 'syncing');
    await h.engine.complete(jobId, 'diarizing');
    const [event] = await h.events(jobId);
    const token = new URL(event!.payload['reviewUrl'] as string).searchParams.get('token')!;
    expect(await h.service.verifyReviewToken(token)).toEqual({ jobId });
    expect(await h.service.verifyReviewToken(token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).toEqual({
      problem: 'invalid',
    });
    expect(await h.service.verifyReviewToken('')).toEqual({ problem: 'missing' });
    await h.advanceClock(72 * 3600_000 + 1000);
    expect(await h.service.verifyReviewToken(token)).toEqual({ problem: 'expired' });
  });
});

describe('chunked storage', () => {
  test('a streamed PUT is stored as 8 MiB Blob chunks, served by Range across chunks and composed by openFileBlob', async () => {
    const { apiKey } = await setup();
    const size = 2 * CHUNK_SIZE + 5;
    const created = await call(apiKey, 'POST', '/jobs', { sources: [{ label: 'A', fileSize: size }, { label: 'B' }] });
    const [a] = Object.keys(created.body.uploads);
    const url = created.body.uploads[a!].url as string;
    // The body arrives in odd-sized pieces, as from a network.
    const piece = 3_000_001;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < size; offset += piece) {
          const n = Math.min(piece, size - offset);
          const bytes = new Uint8Array(n);
          for (let i = 0; i < n; i++) bytes[i] = (offset + i) & 255;
          controller.enqueue(bytes);
        }
        controller.close();
      },
    });
    const put = await h.service.handle(
      new Request(url, { method: 'PUT', body: stream, duplex: 'half' } as RequestInit),
    );
    expect(put.status, await put.clone().text()).toBe(200);
    const chunks = await h.db.getAll('chunks');
    expect(chunks.map((c) => chunkBlob(c).size)).toEqual([CHUNK_SIZE, CHUNK_SIZE, 5]);
    const job = (await call(apiKey, 'GET', `/jobs/${created.body.jobId}`)).body;
    const download = job.sourceUrls[a!] as string;
    const r = await h.service.handle(
      new Request(download, { headers: { range: `bytes=${CHUNK_SIZE - 2}-${CHUNK_SIZE + 1}` } }),
    );
    expect(r.status).toBe(206);
    expect([...new Uint8Array(await r.arrayBuffer())]).toEqual([0, 1, 2, 3].map((i) => (CHUNK_SIZE - 2 + i) % 256));
    const head = await h.service.handle(new Request(download, { method: 'HEAD' }));
    expect(head.headers.get('content-length')).toBe(String(size));
    const [file] = await h.db.getAll('files');
    const blob = await h.service.openFileBlob(file!.id);
    expect(blob.size).toBe(size);
    expect(blob.type).toBe('video/mp4');
    expect([...new Uint8Array(await blob.slice(size - 3).arrayBuffer())]).toEqual(
      [size - 3, size - 2, size - 1].map((x) => x % 256),
    );
    await expect(h.service.openFileBlob('missing')).rejects.toThrow('missing');
    expect((await call(apiKey, 'DELETE', `/jobs/${created.body.jobId}`)).status).toBe(200);
    expect(await h.db.count('chunks')).toBe(0);
  });

  test('malformed percent-encoding in a path is 400, not 500', async () => {
    const { apiKey } = await setup();
    expect((await call(apiKey, 'GET', '/jobs/%E0%A4%A')).status).toBe(400);
  });
});
