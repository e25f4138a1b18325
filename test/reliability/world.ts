/**
 * Builds the fuzzer's world through a {@link ContractHarness} (Node handler or the real
 * service worker): two accounts and one job in each status.
 *
 * @module
 */
import { expect } from 'vitest';
import type { ContractHarness, HarnessResponse } from '../contract/harness.ts';
import type { FuzzJob, FuzzWorld } from './fuzz-cases.ts';

type Json = Record<string, any>; // response bodies read loosely, as a client would

const TURNS = [
  { speaker: 'SPEAKER_00', startMs: 0, endMs: 40_000 },
  { speaker: 'SPEAKER_01', startMs: 40_000, endMs: 75_000 },
  { speaker: 'SPEAKER_00', startMs: 75_000, endMs: 110_000 },
  { speaker: 'SPEAKER_01', startMs: 110_000, endMs: 150_000 },
];

/** Calls the API with a key. */
export function caller(h: ContractHarness, key: string) {
  return async (method: string, rest: string, json?: unknown): Promise<HarnessResponse> =>
    h.request(h.baseUrl + rest, {
      method,
      headers: { authorization: `Bearer ${key}` },
      ...(json === undefined ? {} : { json }),
    });
}

function ok(r: HarnessResponse): Json {
  expect(r.status, r.text).toBe(200);
  return r.json as Json;
}

/** Creates the world: every job status the fuzzer aims at. */
export async function buildWorld(h: ContractHarness): Promise<FuzzWorld & { accountId: string }> {
  const { apiKey: key, accountId } = await h.createAccount();
  const { apiKey: otherKey } = await h.createAccount();
  const call = caller(h, key);

  const create = async (
    body: Json = { sources: [{ label: 'Cam A' }, { label: 'Cam B' }], autoMap: 'off' },
  ): Promise<{ job: FuzzJob; uploads: Json }> => {
    const created = ok(await call('POST', '/jobs', body));
    return { job: { jobId: created.jobId, sourceIds: Object.keys(created.uploads) }, uploads: created.uploads };
  };
  const uploaded = async (): Promise<FuzzJob> => {
    const { job, uploads } = await create();
    for (const info of Object.values(uploads) as Json[])
      expect((await h.request(info.url, { method: 'PUT', body: 'some bytes '.repeat(20) })).status).toBe(200);
    return job;
  };
  const processing = async (): Promise<FuzzJob> => {
    const job = await uploaded();
    ok(await call('POST', `/jobs/${job.jobId}/process`));
    return job;
  };
  const mapping = async (): Promise<FuzzJob> => {
    const job = await processing();
    await h.completeStage(job.jobId, 'syncing', {
      durationsMs: { [job.sourceIds[0]!]: 150_000, [job.sourceIds[1]!]: 150_000 },
    });
    await h.completeStage(job.jobId, 'diarizing', { turns: TURNS });
    return job;
  };
  const ready = async (): Promise<FuzzJob> => {
    const job = await mapping();
    ok(
      await call('POST', `/jobs/${job.jobId}/tracks`, {
        tracks: [
          { sourceId: job.sourceIds[0], speakers: ['SPEAKER_00'] },
          { sourceId: job.sourceIds[1], speakers: ['SPEAKER_01'] },
        ],
      }),
    );
    return job;
  };
  const complete = async (): Promise<FuzzJob> => {
    const job = await ready();
    ok(await call('POST', `/jobs/${job.jobId}/render`));
    await h.completeStage(job.jobId, 'rendering', { outputBytes: new TextEncoder().encode('rendered bytes') });
    return job;
  };
  const failed = async (): Promise<FuzzJob> => {
    const job = await processing();
    await h.failStage(job.jobId, 'syncing', { message: 'fuzz world: sync failed', permanent: true });
    return job;
  };
  const multipart = async (): Promise<FuzzJob> => {
    const { job, uploads } = await create({
      sources: [{ label: 'Cam A' }, { label: 'Big', fileSize: 100 * 1024 * 1024 + 1 }],
    });
    const sourceId = job.sourceIds[1]!;
    const info = uploads[sourceId] as Json;
    return { ...job, multipart: { sourceId, uploadId: info.uploadId, key: info.key } };
  };

  const jobs: Record<string, FuzzJob> = {
    created: await uploaded(),
    multipart: await multipart(),
    processing: await processing(),
    mapping: await mapping(),
    ready: await ready(),
    complete: await complete(),
    failed: await failed(),
  };
  const other = ok(await caller(h, otherKey)('POST', '/jobs', { sources: [{ label: 'X' }, { label: 'Y' }] }));
  const gone = await create();
  ok(await call('DELETE', `/jobs/${gone.job.jobId}`));
  expect(ok(await call('GET', `/jobs/${jobs.failed!.jobId}?view=summary`)).status).toBe('failed');
  return {
    basePath: new URL(h.baseUrl).pathname,
    key,
    otherKey,
    accountId,
    jobs,
    otherJobId: other.jobId,
    deletedJobId: gone.job.jobId,
  };
}

/**
 * getJob's full response text for every job of the world (the client's view, compared byte for
 * byte). With `freshUrls`, the `exp`/`sig` of signed URLs are masked: on a real clock every
 * getJob signs its URLs anew, so only they may differ.
 */
export async function jobViews(
  h: ContractHarness,
  world: FuzzWorld,
  options: { freshUrls?: boolean } = {},
): Promise<Record<string, string>> {
  const mask = (text: string): string =>
    options.freshUrls ? text.replace(/\?exp=\d+&sig=[\w-]+/g, '?exp=…&sig=…') : text;
  const out: Record<string, string> = {};
  for (const [status, job] of Object.entries(world.jobs)) {
    const r = await caller(h, world.key)('GET', `/jobs/${job.jobId}`);
    expect(r.status, r.text).toBe(200);
    out[status] = mask(r.text);
  }
  out['other'] = mask((await caller(h, world.otherKey)('GET', `/jobs/${world.otherJobId}`)).text);
  return out;
}
