/**
 * The typed client runs unchanged against a foreign base URL: msw's Node interceptor answers
 * every request to https://api.example.com/api/* with the service's own handler.
 */
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { MulticamClient } from '../../../src/client/client.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';

const BASE = 'https://api.example.com/api';

describe('typed client through msw (setupServer → service.handle)', () => {
  let h: NodeHarness;
  const server = setupServer(http.all(`${BASE}/*`, ({ request }) => h.service.handle(request)));

  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(async () => {
    server.resetHandlers();
    await h?.dispose();
  });
  afterAll(() => server.close());

  test('a whole job: create (idempotent), upload, process, map, render, download, approve', async () => {
    h = await createNodeHarness({ baseUrl: BASE });
    const { apiKey } = await h.service.accounts.create({ name: 'msw' });
    const client = new MulticamClient({ baseUrl: BASE, apiKey });

    const created = await client.createJob(
      { sources: [{ label: 'Cam A' }, { label: 'Cam B' }], autoMap: 'off' },
      { idempotencyKey: 'msw-1' },
    );
    expect(created.replayed).toBe(false);
    const replay = await client.createJob(
      { sources: [{ label: 'Cam A' }, { label: 'Cam B' }], autoMap: 'off' },
      { idempotencyKey: 'msw-1' },
    );
    expect(replay.replayed).toBe(true);
    expect(replay.jobId).toBe(created.jobId);

    const [a, b] = Object.keys(created.uploads) as [string, string];
    for (const [id, up] of Object.entries(created.uploads)) {
      expect(up.method).toBe('put');
      expect(up.method === 'put' && up.url.startsWith(`${BASE}/signed/upload/`)).toBe(true);
      if (up.method === 'put') await client.upload(up.url, `bytes of ${id}`);
    }
    expect(await client.startProcessing(created.jobId)).toEqual({ jobId: created.jobId, status: 'syncing' });
    await h.engine.complete(created.jobId, 'syncing', { durationsMs: { [a]: 60_000, [b]: 60_000 } });
    await h.engine.complete(created.jobId, 'diarizing');
    const summary = await client.getJobSummary(created.jobId);
    expect(summary.nextAction.type).toBe('map_speakers');
    expect(summary.nextAction.url?.startsWith('https://api.example.com/review/?token=')).toBe(true);

    const mapped = await client.submitSpeakerMapping(created.jobId, {
      tracks: [
        { sourceId: a, speakers: ['SPEAKER_00'] },
        { sourceId: b, speakers: ['SPEAKER_01'] },
      ],
    });
    expect(mapped.success).toBe(true);
    expect(mapped.cuts.length).toBeGreaterThan(0);
    expect(await client.startRender(created.jobId)).toEqual({ jobId: created.jobId, status: 'rendering' });
    await h.engine.complete(created.jobId, 'rendering', { outputBytes: new TextEncoder().encode('the render') });

    const job = await client.getJob(created.jobId);
    expect(job.job.status).toBe('complete');
    expect(Object.keys(job.sourceUrls).sort()).toEqual([a, b].sort());
    const download = await fetch(job.job.output_url!, { headers: { range: 'bytes=4-' } });
    expect(download.status).toBe(206);
    expect(await download.text()).toBe('render');
    expect(await client.approveJob(created.jobId)).toEqual({ jobId: created.jobId, status: 'approved' });
    expect((await client.listJobs()).jobs.map((j) => j.id)).toEqual([created.jobId]);
    expect(await client.deleteJob(created.jobId)).toEqual({ ok: true });
  });

  test('errors throw ApiError with the status, code and Error body', async () => {
    h = await createNodeHarness({ baseUrl: BASE });
    const { apiKey } = await h.service.accounts.create();
    const client = new MulticamClient({ baseUrl: BASE, apiKey });
    const { jobId } = await client.createJob({ sources: [{ label: 'A' }, { label: 'B' }] });
    const error = await client.startProcessing(jobId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);
    expect((error as ApiError).code).toBe('SOURCES_PENDING');
    expect((error as ApiError).body.pendingSourceIds).toHaveLength(2);
    const unauthorized = await new MulticamClient({ baseUrl: BASE, apiKey: 'mc_live_nope' })
      .listJobs()
      .catch((e: unknown) => e);
    expect((unauthorized as ApiError).status).toBe(401);
    expect((unauthorized as ApiError).code).toBeUndefined();
    const invalid = await client.createJob({ sources: [{ label: 'A', fileSize: -1 }] }).catch((e: unknown) => e);
    expect((invalid as ApiError).status).toBe(400);
    expect((invalid as ApiError).body.error).toBe('sources[0].fileSize must be an integer from 0 to 107374182400');
  });
});
