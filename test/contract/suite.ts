/**
 * The one contract suite: every operation, error code, transition and auth case of
 * api-v1, talking ONLY through a {@link ContractHarness}, so the same tests run against the
 * Node handler (node-harness.ts) and the real service worker in Chromium (browser-harness.ts).
 *
 * @module
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { CameraMap, RecordedLevels } from '../../src/contract/types.ts';
import type { ContractHarness, EngineStage, HarnessRequestInit, HarnessResponse } from './harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MB100 = 100 * 1024 * 1024;
const HOUR = 60 * 60 * 1000;

type Json = Record<string, any>; // loosely typed on purpose: the tests read response bodies as a client would

/** Two close-ups, one per speaker, both `high`: `confident` is sure. */
function sureMap(a: string, b: string): CameraMap {
  return {
    version: 1,
    speakers: ['SPEAKER_00', 'SPEAKER_01'],
    unassignedSpeakers: [],
    droppedSpeakers: [],
    cameras: [
      { sourceId: a, kind: 'closeup', confidence: 'high', speakers: ['SPEAKER_00'] },
      { sourceId: b, kind: 'closeup', confidence: 'high', speakers: ['SPEAKER_01'] },
    ],
  };
}

/** The same cameras answered only with `low` confidence: `confident` asks, `always` maps. */
function unsureMap(a: string, b: string): CameraMap {
  const map = sureMap(a, b);
  return {
    ...map,
    unassignedSpeakers: ['SPEAKER_00', 'SPEAKER_01'],
    cameras: map.cameras.map((c) => ({ ...c, confidence: 'low' as const })),
  };
}

/** Two minutes of conversation: both speakers talk over a minute. */
const LONG_TURNS = [
  { speaker: 'SPEAKER_00', startMs: 0, endMs: 40_000 },
  { speaker: 'SPEAKER_01', startMs: 40_000, endMs: 75_000 },
  { speaker: 'SPEAKER_00', startMs: 75_000, endMs: 110_000 },
  { speaker: 'SPEAKER_01', startMs: 110_000, endMs: 150_000 },
];

/** The suite's groups of cases, one per operation or concern, in the order they run. */
export const CONTRACT_GROUPS = [
  'authentication',
  'createJob',
  'bad input never gives 500',
  'listJobs',
  'Idempotency-Key on createJob',
  'uploads and downloads',
  'startProcessing',
  'pipeline stages and automatic mapping',
  'submitSpeakerMapping',
  'nameSpeakers (additive: PUT /jobs/{id}/speakers)',
  'recutJob and updateCuts',
  'startRender, render results and approveJob',
  'stage failures and retryJob',
  'deleteJob and quota',
] as const;
export type ContractGroup = (typeof CONTRACT_GROUPS)[number];

/**
 * Registers the contract suite; `only` registers just those groups (a second browser, or a
 * second base URL, runs a subset: docs/testing.md says which).
 *
 * @example
 * defineContractSuite('node handler', () => createNodeHarness());
 */
export function defineContractSuite(
  name: string,
  makeHarness: () => Promise<ContractHarness>,
  options: { only?: readonly ContractGroup[] } = {},
): void {
  const group = (title: ContractGroup, cases: () => void): void => {
    if (options.only === undefined || options.only.includes(title)) describe(title, cases);
  };
  describe(`contract: ${name}`, () => {
    let h: ContractHarness;
    let key: string;
    let accountId: string;

    beforeEach(async () => {
      h = await makeHarness();
      ({ apiKey: key, accountId } = await h.createAccount());
    });
    afterEach(async () => {
      await h.dispose();
    });

    function call(
      method: string,
      rest: string,
      init: HarnessRequestInit & { key?: string | null } = {},
    ): Promise<HarnessResponse> {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      const k = init.key === undefined ? key : init.key;
      if (k !== null) headers['authorization'] = `Bearer ${k}`;
      const { key: _k, ...rest2 } = init;
      return h.request(h.baseUrl + rest, { ...rest2, method, headers });
    }
    const body = (r: HarnessResponse): Json => r.json as Json;

    /** Asserts the Error shape (and code when given). */
    function expectError(r: HarnessResponse, status: number, code?: string): Json {
      expect(r.status, r.text).toBe(status);
      const b = body(r);
      expect(typeof b.error).toBe('string');
      expect(b.error.length).toBeGreaterThan(0);
      if (code === undefined) expect(b.code).toBeUndefined();
      else expect(b.code).toBe(code);
      return b;
    }

    async function createJob(
      json: unknown = { sources: [{ label: 'Cam A' }, { label: 'Cam B' }] },
      headers: Record<string, string> = {},
    ): Promise<Json> {
      const r = await call('POST', '/jobs', { json, headers });
      expect(r.status, r.text).toBe(200);
      return body(r);
    }

    async function putAll(created: Json, content = (i: number): string => `file ${i} `.repeat(10)): Promise<void> {
      let i = 0;
      for (const info of Object.values<Json>(created.uploads)) {
        const r = await h.request(info.url, { method: 'PUT', body: content(i++) });
        expect(r.status, r.text).toBe(200);
      }
    }

    async function getJob(jobId: string): Promise<Json> {
      const r = await call('GET', `/jobs/${jobId}`);
      expect(r.status, r.text).toBe(200);
      return body(r);
    }
    async function summary(jobId: string): Promise<Json> {
      const r = await call('GET', `/jobs/${jobId}?view=summary`);
      expect(r.status, r.text).toBe(200);
      return body(r);
    }
    async function statusOf(jobId: string): Promise<string> {
      return (await summary(jobId)).status;
    }
    async function pending(jobId: string): Promise<EngineStage[]> {
      return (await h.pendingStages()).filter((w) => w.jobId === jobId).map((w) => w.stage);
    }

    /** A job with two uploaded videos, processing started. */
    async function processingJob(options: Json = {}): Promise<{ jobId: string; a: string; b: string }> {
      const created = await createJob({ sources: [{ label: 'Cam A' }, { label: 'Cam B' }], ...options });
      await putAll(created);
      const r = await call('POST', `/jobs/${created.jobId}/process`);
      expect(r.status, r.text).toBe(200);
      const [a, b] = Object.keys(created.uploads) as [string, string];
      return { jobId: created.jobId, a, b };
    }

    /** Through syncing and diarizing into mapping (two minutes of footage, two speakers). */
    async function mappingJob(options: Json = {}): Promise<{ jobId: string; a: string; b: string }> {
      const job = await processingJob(options);
      await h.completeStage(job.jobId, 'syncing', { durationsMs: { [job.a]: 150_000, [job.b]: 150_000 } });
      await h.completeStage(job.jobId, 'diarizing', { turns: LONG_TURNS });
      return job;
    }

    /** Mapped by the client: ready with cuts. */
    async function readyJob(options: Json = {}): Promise<{ jobId: string; a: string; b: string; cuts: Json[] }> {
      const job = await mappingJob({ autoMap: 'off', ...options });
      const r = await call('POST', `/jobs/${job.jobId}/tracks`, {
        json: {
          tracks: [
            { sourceId: job.a, speakers: ['SPEAKER_00'] },
            { sourceId: job.b, speakers: ['SPEAKER_01'] },
          ],
        },
      });
      expect(r.status, r.text).toBe(200);
      return { ...job, cuts: body(r).cuts };
    }

    async function completeJob(options: Json = {}): Promise<{ jobId: string; a: string; b: string }> {
      const job = await readyJob(options);
      expect((await call('POST', `/jobs/${job.jobId}/render`)).status).toBe(200);
      await h.completeStage(job.jobId, 'rendering', {
        outputBytes: new TextEncoder().encode('rendered video bytes 0123456789'),
      });
      return job;
    }

    // ---------------------------------------------------------------- auth
    group('authentication', () => {
      test('missing, malformed, unknown and revoked keys get 401 with the Error shape', async () => {
        expectError(await call('GET', '/jobs', { key: null }), 401);
        expectError(await call('GET', '/jobs', { key: null, headers: { authorization: 'Basic abc' } }), 401);
        expectError(await call('GET', '/jobs', { key: 'mc_live_doesnotexist' }), 401);
        expectError(await call('GET', '/jobs', { key: 'sk_other_prefix' }), 401);
        const second = await h.createApiKey(accountId);
        expect(second.startsWith('mc_live_')).toBe(true);
        expect((await call('GET', '/jobs', { key: second })).status).toBe(200);
        await h.revokeApiKey(second);
        expectError(await call('GET', '/jobs', { key: second }), 401);
        expect((await call('GET', '/jobs')).status).toBe(200);
      });

      test("another account's job is 404 on every job operation", async () => {
        const { jobId } = await createJob();
        const other = (await h.createAccount()).apiKey;
        for (const [method, rest] of [
          ['GET', `/jobs/${jobId}`],
          ['GET', `/jobs/${jobId}?view=summary`],
          ['DELETE', `/jobs/${jobId}`],
          ['POST', `/jobs/${jobId}/process`],
          ['POST', `/jobs/${jobId}/tracks`],
          ['POST', `/jobs/${jobId}/recut`],
          ['PATCH', `/jobs/${jobId}/cuts`],
          ['POST', `/jobs/${jobId}/render`],
          ['POST', `/jobs/${jobId}/approve`],
          ['POST', `/jobs/${jobId}/retry`],
        ] as const) {
          expectError(
            await call(method, rest, { key: other, ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }) }),
            404,
          );
        }
        expect((await getJob(jobId)).job.id).toBe(jobId);
        const list = body(await call('GET', '/jobs', { key: other }));
        expect(list.jobs).toEqual([]);
      });

      test('a review link token (Authorization: Review <token>) opens its own job in the editor, nothing else', async () => {
        const { jobId, a, b } = await mappingJob({ autoMap: 'off' });
        const other = await createJob();
        const reviewUrl = ((await h.events(jobId))[0]!.payload as Json).reviewUrl as string;
        const token = new URL(reviewUrl).searchParams.get('token')!;
        const review = (method: string, rest: string, json?: unknown): Promise<HarnessResponse> =>
          call(method, rest, {
            key: null,
            headers: { authorization: `Review ${token}` },
            ...(json === undefined ? {} : { json }),
          });
        expect((await review('GET', `/jobs/${jobId}`)).status).toBe(200);
        expect(body(await review('GET', `/jobs/${jobId}?view=summary`)).status).toBe('mapping');
        expectError(await review('GET', `/jobs/${other.jobId}`), 401);
        expectError(await review('GET', '/jobs'), 401);
        expectError(await review('POST', '/jobs', { sources: [] }), 401);
        expectError(await review('DELETE', `/jobs/${jobId}`), 401);
        expectError(await review('POST', `/jobs/${jobId}/retry`, {}), 401);
        const tracks = [
          { sourceId: a, speakers: ['SPEAKER_00'] },
          { sourceId: b, speakers: ['SPEAKER_01'] },
        ];
        expect((await review('POST', `/jobs/${jobId}/tracks`, { tracks })).status).toBe(200);
        expect((await review('PUT', `/jobs/${jobId}/speakers`, { names: { SPEAKER_00: 'Ana' } })).status).toBe(200);
        expectError(await review('PUT', `/jobs/${other.jobId}/speakers`, { names: {} }), 401);
        expect((await review('POST', `/jobs/${jobId}/render`)).status).toBe(200);
        const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
        expectError(
          await call('GET', `/jobs/${jobId}`, { key: null, headers: { authorization: `Review ${tampered}` } }),
          401,
        );
        if (!h.canAdvanceClock) return;
        await h.advanceClock(72 * HOUR + 1000);
        expectError(await review('GET', `/jobs/${jobId}`), 401);
      });

      test('unknown paths are 404 and wrong methods 405, both with the Error shape', async () => {
        // Under the contract's own paths; a host app's `{base}/other` is not the worker's to answer.
        expectError(await call('GET', '/jobs/00000000-0000-4000-8000-000000000000/nothing-here'), 404);
        expectError(await call('GET', '/uploads/nothing-here'), 404);
        expectError(await call('GET', '/jobs/00000000-0000-4000-8000-000000000000'), 404);
        const r = await call('PUT', '/jobs', { json: {} });
        expectError(r, 405);
        expect(r.headers['allow']).toContain('POST');
        expectError(await call('POST', '/jobs/00000000-0000-4000-8000-000000000000/cuts', { json: {} }), 405);
      });
    });

    // ---------------------------------------------------------------- createJob
    group('createJob', () => {
      test('returns a job id and one upload per source in request order: PUT up to 100 MB, multipart above', async () => {
        const r = await createJob({
          sources: [
            { label: 'Cam A' },
            { label: 'Cam B', fileSize: MB100 },
            { label: 'Cam C', fileSize: MB100 + 1 },
            { label: 'Mic', kind: 'audio' },
          ],
          unknownField: 'ignored',
        });
        expect(r.jobId).toMatch(UUID);
        expect(r.audioUploads).toBeTypeOf('object');
        const ids = Object.keys(r.uploads);
        expect(ids).toHaveLength(4);
        for (const id of ids) expect(id).toMatch(UUID);
        const [a, b, c, mic] = ids.map((id) => r.uploads[id]);
        expect(a.method).toBe('put');
        expect(a.url).toMatch(/^https?:\/\//);
        expect(b.method).toBe('put');
        expect(mic.method).toBe('put');
        expect(c.method).toBe('multipart');
        expect(c.partSize).toBeGreaterThan(0);
        expect(c.partCount).toBe(Math.ceil((MB100 + 1) / c.partSize));
        expect(c.urls.length).toBeGreaterThan(0);
        expect(c.urls.length).toBeLessThanOrEqual(c.partCount);
        expect(typeof c.uploadId).toBe('string');
        expect(typeof c.key).toBe('string');
        // The sources come back in order with defaults filled in.
        const job = (await getJob(r.jobId)).job;
        expect(job.sources.map((s: Json) => s.id)).toEqual(ids);
        expect(job.sources.map((s: Json) => [s.label, s.kind, s.ext])).toEqual([
          ['Cam A', 'video', 'mp4'],
          ['Cam B', 'video', 'mp4'],
          ['Cam C', 'video', 'mp4'],
          ['Mic', 'audio', 'wav'],
        ]);
        expect(job.sources[1].fileSize).toBe(MB100);
      });

      test('the full job is snake_case with defaults; a title is generated from the labels', async () => {
        const { jobId } = await createJob({
          sources: [
            { label: 'Alice cam', ext: 'mov' },
            { label: 'Bob cam', ext: 'nonsense' },
          ],
        });
        const got = await getJob(jobId);
        expect(got.sourceUrls).toEqual({});
        expect(got.audioUrl).toBeNull();
        const job = got.job;
        expect(job).toMatchObject({
          id: jobId,
          status: 'created',
          tracks: [],
          turns: [],
          cuts: [],
          removed_ranges: null,
          camera_map: null,
          output_url: null,
          output_format: null,
          speaker_names: {},
          error_message: null,
          failed_at_status: null,
          review: true,
          auto_map: 'confident',
          callback_url: null,
        });
        expect(job.title).toContain('Alice cam');
        expect(job.title).toContain('Bob cam');
        expect(job.sources.map((s: Json) => s.ext)).toEqual(['mov', 'mp4']);
        expect(Date.parse(job.created_at)).not.toBeNaN();
        expect(Date.parse(job.updated_at)).not.toBeNaN();
      });

      test('given title, callbackUrl, review, autoMap and silence are kept', async () => {
        const { jobId } = await createJob({
          sources: [{ label: 'A' }, { label: 'B' }],
          title: 'Episode 12',
          callbackUrl: 'https://hooks.example.com/multicam',
          review: false,
          autoMap: 'always',
          silence: { mode: 'tighten' },
        });
        const job = (await getJob(jobId)).job;
        expect(job).toMatchObject({
          title: 'Episode 12',
          callback_url: 'https://hooks.example.com/multicam',
          review: false,
          auto_map: 'always',
        });
      });

      test('bad bodies get 400 naming the field, never 500', async () => {
        const bad = async (json: unknown, field: string, code?: string): Promise<Json> => {
          const r = await call(
            'POST',
            '/jobs',
            json === undefined
              ? {}
              : typeof json === 'string'
                ? { body: json, headers: { 'content-type': 'application/json' } }
                : { json },
          );
          const b = expectError(r, 400, code);
          expect(b.error).toContain(field);
          return b;
        };
        await bad('{"sources": [', 'JSON');
        await bad(undefined, 'body');
        await bad([], 'body');
        await bad({}, 'sources');
        await bad({ sources: 'x' }, 'sources');
        await bad({ sources: Array.from({ length: 13 }, (_, i) => ({ label: `s${i}` })) }, 'sources');
        await bad({ sources: [{ label: 'A' }, {}] }, 'sources[1].label');
        await bad({ sources: [{ label: 'A', kind: 'hologram' }] }, 'sources[0].kind');
        const b = await bad(
          { sources: [{ label: 'A' }, { label: 'B' }, { label: 'C', fileSize: -1 }] },
          'sources[2].fileSize',
        );
        expect(b.error).toBe('sources[2].fileSize must be an integer from 0 to 107374182400');
        await bad({ sources: [{ label: 'A', fileSize: 1.5 }] }, 'sources[0].fileSize', 'INVALID_FILE_SIZE');
        await bad({ sources: [{ label: 'A', fileSize: '12' }] }, 'sources[0].fileSize', 'INVALID_FILE_SIZE');
        const big = await bad(
          { sources: [{ label: 'A' }, { label: 'B', fileSize: 107374182401 }] },
          'sources[1].fileSize',
          'FILE_TOO_LARGE',
        );
        expect(big.maxBytes).toBe(107374182400);
        expect(big.sourceIndex).toBe(1);
        await bad(
          { sources: [{ label: 'A' }], tracks: [{ sourceId: 'x', speakers: ['SPEAKER_00'] }] },
          'tracks',
          'TRACKS_ON_CREATE',
        );
        await bad({ sources: [{ label: 'A' }], title: '' }, 'title');
        await bad({ sources: [{ label: 'A' }], title: 'x'.repeat(201) }, 'title');
        await bad({ sources: [{ label: 'A' }], callbackUrl: 'not a url' }, 'callbackUrl');
        await bad({ sources: [{ label: 'A' }], review: 'yes' }, 'review');
        await bad({ sources: [{ label: 'A' }], autoMap: 'sometimes' }, 'autoMap');
        await bad({ sources: [{ label: 'A' }], silence: { mode: 'loud' } }, 'silence.mode');
        await bad({ sources: [{ label: 'A' }], silence: { mode: 'tighten', minPauseSec: 0.1 } }, 'silence.minPauseSec');
        await bad({ sources: [{ label: 'A' }], silence: { mode: 'tighten', keepPauseSec: 4 } }, 'silence.keepPauseSec');
        await bad({ sources: [{ label: 'A' }], silence: { mode: 'remove', paddingSec: 2 } }, 'silence.paddingSec');
        expect(body(await call('GET', '/jobs')).jobs).toEqual([]);
      });
    });

    // ---------------------------------------------------------------- robustness
    group('bad input never gives 500', () => {
      test('odd bodies on every operation get 4xx with the Error shape', async () => {
        const ready = await readyJob();
        const mapping = await mappingJob({ autoMap: 'off' });
        const bodies: unknown[] = [
          null,
          [],
          'text',
          7,
          true,
          {},
          { tracks: 5 },
          { tracks: [null] },
          { tracks: [{ sourceId: 5, speakers: [1] }] },
          { cuts: [null] },
          { cuts: 'x', removedRanges: [{}] },
          { presetId: 5, silence: [] },
          { presetId: 'balanced', silence: null },
          { diarizeSourceIds: [5] },
          { uploadId: 5, partNumbers: 'x' },
          { key: [], uploadId: {} },
          { sources: [null] },
          { sources: [{ label: 'A', fileSize: null }] },
        ];
        const targets: Array<[string, string]> = [
          ['POST', '/jobs'],
          ...[ready.jobId, mapping.jobId].flatMap((id): Array<[string, string]> => [
            ['POST', `/jobs/${id}/process`],
            ['POST', `/jobs/${id}/tracks`],
            ['POST', `/jobs/${id}/recut`],
            ['PATCH', `/jobs/${id}/cuts`],
            ['POST', `/jobs/${id}/retry`],
            ['POST', `/jobs/${id}/sources/${ready.a}/parts`],
          ]),
          ['POST', '/uploads/complete'],
          ['POST', '/uploads/abort'],
        ];
        for (const [method, rest] of targets) {
          for (const json of bodies) {
            const r = await call(method, rest, { json });
            expect(r.status, `${method} ${rest} ${JSON.stringify(json)}: ${r.text}`).toBeGreaterThanOrEqual(400);
            expect(r.status, `${method} ${rest} ${JSON.stringify(json)}: ${r.text}`).toBeLessThan(500);
            expect(typeof body(r).error).toBe('string');
          }
        }
        expect(await statusOf(ready.jobId)).toBe('ready');
        expect(await statusOf(mapping.jobId)).toBe('mapping');
      });
    });

    // ---------------------------------------------------------------- listJobs
    group('listJobs', () => {
      test('the 50 most recent jobs of the caller, newest first, as JobListItems', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 51; i++)
          ids.push((await createJob({ sources: [{ label: `S${i}` }], title: `Job ${i}` })).jobId);
        const { jobs } = body(await call('GET', '/jobs'));
        expect(jobs).toHaveLength(50);
        expect(jobs.map((j: Json) => j.id)).toEqual(ids.slice(1).reverse());
        expect(Object.keys(jobs[0]).sort()).toEqual(['created_at', 'id', 'status', 'title', 'updated_at']);
        expect(jobs[0]).toMatchObject({ title: 'Job 50', status: 'created' });
      });
    });

    // ---------------------------------------------------------------- idempotency
    group('Idempotency-Key on createJob', () => {
      const job = { sources: [{ label: 'A' }, { label: 'B' }] };

      test('same key and body: the same job with fresh working URLs and Idempotent-Replayed: true', async () => {
        const first = await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'episode-12' } });
        expect(first.status).toBe(200);
        expect(first.headers['idempotent-replayed']).toBeUndefined();
        await h.advanceClock(1000);
        // Key order of the body does not matter.
        const again = await call('POST', '/jobs', {
          json: { sources: job.sources.map((s) => ({ ...s })) },
          headers: { 'idempotency-key': 'episode-12' },
        });
        expect(again.status).toBe(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(body(again).jobId).toBe(body(first).jobId);
        expect(Object.keys(body(again).uploads)).toEqual(Object.keys(body(first).uploads));
        await putAll(body(again));
        expect(Object.keys((await getJob(body(first).jobId)).sourceUrls)).toHaveLength(2);
        expect(body(await call('GET', '/jobs')).jobs).toHaveLength(1);
      });

      test('same key with another body is 422; refused requests do not use the key; keys are per account', async () => {
        expect((await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'k1' } })).status).toBe(200);
        expectError(
          await call('POST', '/jobs', { json: { ...job, title: 'other' }, headers: { 'idempotency-key': 'k1' } }),
          422,
          'IDEMPOTENCY_KEY_MISMATCH',
        );
        // A refused request (400) leaves the key free.
        expectError(
          await call('POST', '/jobs', { json: { sources: 'bad' }, headers: { 'idempotency-key': 'k2' } }),
          400,
        );
        const fresh = await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'k2' } });
        expect(fresh.status).toBe(200);
        expect(fresh.headers['idempotent-replayed']).toBeUndefined();
        const other = (await h.createAccount()).apiKey;
        const theirs = await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'k1' }, key: other });
        expect(theirs.status).toBe(200);
        expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      });

      test('invalid keys are 400 INVALID_IDEMPOTENCY_KEY', async () => {
        expectError(
          await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'x'.repeat(256) } }),
          400,
          'INVALID_IDEMPOTENCY_KEY',
        );
        expectError(
          await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'caf\u00e9' } }),
          400,
          'INVALID_IDEMPOTENCY_KEY',
        );
        expect(
          (await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'x'.repeat(255) } })).status,
        ).toBe(200);
      });

      test('the key of a deleted job is 409 IDEMPOTENCY_KEY_REUSED', async () => {
        const first = body(await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'gone' } }));
        expect((await call('DELETE', `/jobs/${first.jobId}`)).status).toBe(200);
        expectError(
          await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'gone' } }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
      });

      test('concurrent requests with one key create one job; the others replay it or get 409 IDEMPOTENCY_IN_PROGRESS with Retry-After', async () => {
        const responses = await Promise.all(
          Array.from({ length: 4 }, () => call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'race' } })),
        );
        const ok = responses.filter((r) => r.status === 200);
        expect(ok.length).toBeGreaterThanOrEqual(1);
        expect(new Set(ok.map((r) => body(r).jobId)).size).toBe(1);
        for (const r of responses.filter((x) => x.status !== 200)) {
          expectError(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
          expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        }
        expect(body(await call('GET', '/jobs')).jobs).toHaveLength(1);
      });

      test('a key is remembered 24 hours', async () => {
        if (!h.canAdvanceClock) return;
        const first = body(await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'day' } }));
        await h.advanceClock(23 * HOUR);
        expect(body(await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'day' } })).jobId).toBe(
          first.jobId,
        );
        await h.advanceClock(2 * HOUR);
        const later = await call('POST', '/jobs', { json: job, headers: { 'idempotency-key': 'day' } });
        expect(later.status).toBe(200);
        expect(body(later).jobId).not.toBe(first.jobId);
      });
    });
    // ---------------------------------------------------------------- uploads and downloads
    group('uploads and downloads', () => {
      test('a PUT upload is served back from sourceUrls with HTTP Range (206, Content-Range, 416)', async () => {
        const created = await createJob({ sources: [{ label: 'A' }, { label: 'B', fileSize: 26 }] });
        const [a, b] = Object.keys(created.uploads) as [string, string];
        const text = 'abcdefghijklmnopqrstuvwxyz';
        // No Authorization header on presigned URLs.
        expect((await h.request(created.uploads[a].url, { method: 'PUT', body: 'first version' })).status).toBe(200);
        expect((await h.request(created.uploads[a].url, { method: 'PUT', body: text })).status).toBe(200);
        expect((await h.request(created.uploads[b].url, { method: 'PUT', body: text })).status).toBe(200);
        const got = await getJob(created.jobId);
        expect(Object.keys(got.sourceUrls).sort()).toEqual([a, b].sort());
        const url = got.sourceUrls[a];
        const full = await h.request(url);
        expect(full.status).toBe(200);
        expect(full.text).toBe(text);
        expect(full.headers['accept-ranges']).toBe('bytes');
        const part = await h.request(url, { headers: { range: 'bytes=2-5' } });
        expect(part.status).toBe(206);
        expect(part.text).toBe('cdef');
        expect(part.headers['content-range']).toBe('bytes 2-5/26');
        const open = await h.request(url, { headers: { range: 'bytes=20-' } });
        expect(open.status).toBe(206);
        expect(open.text).toBe('uvwxyz');
        const suffix = await h.request(url, { headers: { range: 'bytes=-3' } });
        expect(suffix.status).toBe(206);
        expect(suffix.text).toBe('xyz');
        expect(suffix.headers['content-range']).toBe('bytes 23-25/26');
        const beyond = await h.request(url, { headers: { range: 'bytes=26-30' } });
        expect(beyond.status).toBe(416);
        expect(beyond.headers['content-range']).toBe('bytes */26');
        // `download=<name>` (outside the signature) makes it an attachment a click saves.
        expect(full.headers['content-disposition']).toBeUndefined();
        const named = await h.request(`${url}&download=${encodeURIComponent('Épisode 1.mp4')}`);
        expect(named.status).toBe(200);
        expect(named.text).toBe(text);
        expect(named.headers['content-disposition']).toBe(
          `attachment; filename="_pisode 1.mp4"; filename*=UTF-8''${encodeURIComponent('Épisode 1.mp4')}`,
        );
      });

      test('tampered, unsigned and (with a clock) expired URLs get 403 with the Error shape', async () => {
        const created = await createJob();
        const url = (Object.values(created.uploads)[0] as Json).url as string;
        expectError(await h.request(url.replace(/sig=[^&]+/, 'sig=AAAA'), { method: 'PUT', body: 'x' }), 403);
        expectError(
          await h.request(
            url.replace(/exp=(\d+)/, (_m, e: string) => `exp=${Number(e) + 1000}`),
            { method: 'PUT', body: 'x' },
          ),
          403,
        );
        expectError(await h.request(url.split('?')[0]!, { method: 'PUT', body: 'x' }), 403);
        // A PUT signature does not sign a GET.
        expectError(await h.request(url), 405);
        if (!h.canAdvanceClock) return;
        await h.advanceClock(HOUR + 1000);
        expectError(await h.request(url, { method: 'PUT', body: 'x' }), 403);
      });

      test('download URLs expire after one hour; getJob signs fresh ones', async () => {
        if (!h.canAdvanceClock) return;
        const created = await createJob();
        await putAll(created);
        const first = (await getJob(created.jobId)).sourceUrls;
        const id = Object.keys(first)[0]!;
        expect((await h.request(first[id])).status).toBe(200);
        await h.advanceClock(HOUR + 1000);
        expectError(await h.request(first[id]), 403);
        expect((await h.request((await getJob(created.jobId)).sourceUrls[id])).status).toBe(200);
      });

      test('a PUT whose size differs from the declared fileSize is 400 FILE_SIZE_MISMATCH, and startProcessing reports it', async () => {
        const created = await createJob({ sources: [{ label: 'A', fileSize: 10 }, { label: 'B' }] });
        const [a, b] = Object.keys(created.uploads) as [string, string];
        const wrong = expectError(
          await h.request(created.uploads[a].url, { method: 'PUT', body: 'too long for ten' }),
          400,
          'FILE_SIZE_MISMATCH',
        );
        expect(wrong.sourceId).toBe(a);
        expectError(
          await h.request(created.uploads[a].url, { method: 'PUT', body: 'short' }),
          400,
          'FILE_SIZE_MISMATCH',
        );
        expect((await h.request(created.uploads[b].url, { method: 'PUT', body: 'fine' })).status).toBe(200);
        const start = expectError(await call('POST', `/jobs/${created.jobId}/process`), 400, 'FILE_SIZE_MISMATCH');
        expect(start.sourceId).toBe(a);
        expect(Object.keys((await getJob(created.jobId)).sourceUrls)).toEqual([b]);
        // Uploading again to the same source clears it.
        expect((await h.request(created.uploads[a].url, { method: 'PUT', body: '0123456789' })).status).toBe(200);
        expect((await call('POST', `/jobs/${created.jobId}/process`)).status).toBe(200);
      });

      test('multipart: a file declared at 100 MB + 1 B is uploaded in parts, completed, and read back across part boundaries', async () => {
        const size = MB100 + 1;
        const created = await createJob({ sources: [{ label: 'Big', fileSize: size }, { label: 'Small' }] });
        const [big, small] = Object.keys(created.uploads) as [string, string];
        const up = created.uploads[big];
        expect(up.method).toBe('multipart');
        const { partSize, partCount, uploadId } = up;
        // More part URLs, at most 16 a call, each within partCount.
        const numbers = Array.from({ length: partCount }, (_, i) => i + 1);
        const urls: Record<string, string> = {};
        up.urls.forEach((u: string, i: number) => (urls[String(i + 1)] = u));
        const missing = numbers.filter((n) => !urls[String(n)]);
        for (let i = 0; i < missing.length; i += 16) {
          const r = await call('POST', `/jobs/${created.jobId}/sources/${big}/parts`, {
            json: { uploadId, partNumbers: missing.slice(i, i + 16) },
          });
          expect(r.status, r.text).toBe(200);
          Object.assign(urls, body(r).urls);
        }
        expectError(
          await call('POST', `/jobs/${created.jobId}/sources/${big}/parts`, {
            json: { uploadId, partNumbers: Array.from({ length: 17 }, (_, i) => (i % partCount) + 1) },
          }),
          400,
        );
        expectError(
          await call('POST', `/jobs/${created.jobId}/sources/${big}/parts`, {
            json: { uploadId, partNumbers: [partCount + 1] },
          }),
          400,
        );
        expectError(
          await call('POST', `/jobs/${created.jobId}/sources/${big}/parts`, { json: { partNumbers: [1] } }),
          400,
        );
        expectError(
          await call('POST', `/jobs/${created.jobId}/sources/00000000-0000-4000-8000-000000000000/parts`, {
            json: { uploadId, partNumbers: [1] },
          }),
          404,
        );
        // Each part is filled with its part number, so reads can check where bytes came from.
        for (const n of numbers) {
          const length = n < partCount ? partSize : size - partSize * (partCount - 1);
          const r = await h.request(urls[String(n)]!, {
            method: 'PUT',
            body: { fill: 48 + (n % 10), length },
          });
          expect(r.status, r.text).toBe(200);
        }
        const bad = expectError(await call('POST', '/uploads/complete', { json: { uploadId } }), 400);
        expect(bad.error).toContain('key');
        const other = (await h.createAccount()).apiKey;
        expectError(await call('POST', '/uploads/complete', { json: { key: up.key, uploadId }, key: other }), 403);
        expectError(await call('POST', '/uploads/abort', { json: { key: up.key, uploadId }, key: other }), 403);
        const done = await call('POST', '/uploads/complete', { json: { key: up.key, uploadId } });
        expect(done.status, done.text).toBe(200);
        expect(body(done)).toEqual({ ok: true });
        const url = (await getJob(created.jobId)).sourceUrls[big];
        const head = await h.request(url, { headers: { range: 'bytes=0-0' } });
        expect(head.headers['content-range']).toBe(`bytes 0-0/${size}`);
        const across = await h.request(url, { headers: { range: `bytes=${partSize - 2}-${partSize + 1}` } });
        expect(across.status).toBe(206);
        expect(across.text).toBe('1122');
        const last = await h.request(url, { headers: { range: 'bytes=-1' } });
        expect(last.text).toBe(String(partCount % 10));
        expect((await h.request(created.uploads[small].url, { method: 'PUT', body: 'small' })).status).toBe(200);
        expect((await call('POST', `/jobs/${created.jobId}/process`)).status).toBe(200);
      });

      test('multipart: completing with parts missing is 400 FILE_SIZE_MISMATCH and deletes the parts; abort discards parts', async () => {
        const created = await createJob({ sources: [{ label: 'Big', fileSize: MB100 + 1 }, { label: 'B' }] });
        const [big] = Object.keys(created.uploads) as [string];
        const up = created.uploads[big];
        expect((await h.request(up.urls[0], { method: 'PUT', body: new Uint8Array(1000) })).status).toBe(200);
        const r = expectError(
          await call('POST', '/uploads/complete', { json: { key: up.key, uploadId: up.uploadId } }),
          400,
          'FILE_SIZE_MISMATCH',
        );
        expect(r.sourceId).toBe(big);
        expectError(await call('POST', `/jobs/${created.jobId}/process`), 400, 'FILE_SIZE_MISMATCH');
        expect((await h.request(up.urls[0], { method: 'PUT', body: new Uint8Array(10) })).status).toBe(200);
        const aborted = await call('POST', '/uploads/abort', { json: { key: up.key, uploadId: up.uploadId } });
        expect(aborted.status).toBe(200);
        expect(body(aborted)).toEqual({ ok: true });
        expectError(await call('POST', '/uploads/abort', { json: { key: up.key } }), 400);
        // The aborted part is gone: completing now finds nothing uploaded.
        expectError(
          await call('POST', '/uploads/complete', { json: { key: up.key, uploadId: up.uploadId } }),
          400,
          'FILE_SIZE_MISMATCH',
        );
      });
    });
    // ---------------------------------------------------------------- startProcessing
    group('startProcessing', () => {
      test('checks sources: none, not enough videos, pending uploads (with pendingSourceIds), unknown diarizeSourceIds', async () => {
        const empty = await createJob({ sources: [] });
        expectError(await call('POST', `/jobs/${empty.jobId}/process`), 400);
        const one = await createJob({ sources: [{ label: 'Cam' }, { label: 'Mic', kind: 'audio' }] });
        await putAll(one);
        expectError(await call('POST', `/jobs/${one.jobId}/process`), 400, 'NOT_ENOUGH_VIDEOS');
        const created = await createJob({ sources: [{ label: 'A' }, { label: 'B' }, { label: 'Mic', kind: 'audio' }] });
        const ids = Object.keys(created.uploads);
        await h.request(created.uploads[ids[0]!].url, { method: 'PUT', body: 'a' });
        const r = expectError(await call('POST', `/jobs/${created.jobId}/process`), 409, 'SOURCES_PENDING');
        expect(r.pendingSourceIds).toEqual(ids.slice(1));
        await putAll(created);
        expectError(
          await call('POST', `/jobs/${created.jobId}/process`, { json: { diarizeSourceIds: ['nope'] } }),
          400,
        );
        expectError(await call('POST', `/jobs/${created.jobId}/process`, { json: { diarizeSourceIds: 'nope' } }), 400);
        expect(await statusOf(created.jobId)).toBe('created');
        const ok = await call('POST', `/jobs/${created.jobId}/process`, { json: { diarizeSourceIds: [ids[2]] } });
        expect(ok.status, ok.text).toBe(200);
        expect(body(ok)).toEqual({ jobId: created.jobId, status: 'syncing' });
      });

      test('moves the job to syncing and hands it to the engine; a repeated call answers alreadyProcessed; later it is 409 INVALID_STATUS with status', async () => {
        const { jobId } = await processingJob();
        expect(await statusOf(jobId)).toBe('syncing');
        expect(await pending(jobId)).toEqual(['syncing']);
        const again = await call('POST', `/jobs/${jobId}/process`);
        expect(again.status).toBe(200);
        expect(body(again)).toMatchObject({ jobId, alreadyProcessed: true });
        expect(await pending(jobId)).toEqual(['syncing']);
        await h.completeStage(jobId, 'syncing');
        await h.completeStage(jobId, 'diarizing');
        const late = expectError(await call('POST', `/jobs/${jobId}/process`), 409, 'INVALID_STATUS');
        expect(late.status).toBe('mapping');
      });
    });

    // ---------------------------------------------------------------- the pipeline and autoMap
    group('pipeline stages and automatic mapping', () => {
      test('syncing → diarizing → mapping; autoMap off sends mapping right away without cameraMap, speakers most talkative first', async () => {
        const { jobId, a, b } = await processingJob({ autoMap: 'off', callbackUrl: 'https://hooks.example.com/x' });
        const s = await summary(jobId);
        expect(s).toMatchObject({
          id: jobId,
          status: 'syncing',
          progress: null,
          outputUrl: null,
          error: null,
          failedAtStatus: null,
        });
        expect(s.nextAction.type).toBe('wait');
        await h.completeStage(jobId, 'syncing', { durationsMs: { [a]: 150_000, [b]: 149_000 } });
        expect(await statusOf(jobId)).toBe('diarizing');
        expect(await pending(jobId)).toEqual(['diarizing']);
        const turns = [
          { speaker: 'SPEAKER_01', startMs: 0, endMs: 10_000 },
          { speaker: 'SPEAKER_00', startMs: 10_000, endMs: 90_000 },
        ];
        await h.completeStage(jobId, 'diarizing', { turns });
        expect(await statusOf(jobId)).toBe('mapping');
        const events = await h.events(jobId);
        expect(events.map((e) => e.type)).toEqual(['mapping']);
        const p = events[0]!.payload as Json;
        expect(p.jobId).toBe(jobId);
        expect(p.status).toBe('mapping');
        expect(p.speakers).toEqual(['SPEAKER_00', 'SPEAKER_01']);
        expect('cameraMap' in p).toBe(false);
        expect(p.reviewUrl).toMatch(new RegExp(`^${h.linkOrigin}/review/\\?token=.+`));
        const m = await summary(jobId);
        expect(m.nextAction.type).toBe('map_speakers');
        expect(m.nextAction.url).toMatch(/\/review\/\?token=/);
        const job = (await getJob(jobId)).job;
        expect(job.turns).toEqual(turns);
        expect(job.sources.map((x: Json) => x.durationMs)).toEqual([150_000, 149_000]);
        // The proposal is still worked out and shows up in getJob, without another event.
        expect(await pending(jobId)).toEqual(['mapping']);
        await h.completeStage(jobId, 'mapping', { cameraMap: sureMap(a, b) });
        expect((await getJob(jobId)).job.camera_map).toMatchObject({
          version: 1,
          cameras: [{ sourceId: a }, { sourceId: b }],
        });
        expect(await statusOf(jobId)).toBe('mapping');
        expect((await h.events(jobId)).map((e) => e.type)).toEqual(['mapping']);
      });

      test('confident and sure: the service maps the cameras, the job is ready with cuts, and the next event is ready', async () => {
        const { jobId, a, b } = await mappingJob();
        expect(await statusOf(jobId)).toBe('mapping');
        expect(await h.events(jobId)).toEqual([]);
        await h.completeStage(jobId, 'mapping', { cameraMap: sureMap(a, b) });
        expect(await statusOf(jobId)).toBe('ready');
        const events = await h.events(jobId);
        expect(events.map((e) => e.type)).toEqual(['ready']);
        expect(Object.keys(events[0]!.payload).sort()).toEqual(['jobId', 'reviewUrl', 'status']);
        const job = (await getJob(jobId)).job;
        expect(job.tracks).toEqual([
          { sourceId: a, speakers: ['SPEAKER_00'] },
          { sourceId: b, speakers: ['SPEAKER_01'] },
        ]);
        expect(job.cuts.length).toBeGreaterThan(0);
        for (const cut of job.cuts) expect([a, b]).toContain(cut.sourceId);
        expect((await summary(jobId)).nextAction.type).toBe('review_or_render');
        expect(await pending(jobId)).toEqual([]);
      });

      test('confident and not sure: mapping event with cameraMap; no proposal at all: mapping event without cameraMap', async () => {
        const unsure = await mappingJob();
        await h.completeStage(unsure.jobId, 'mapping', { cameraMap: unsureMap(unsure.a, unsure.b) });
        expect(await statusOf(unsure.jobId)).toBe('mapping');
        const [event] = await h.events(unsure.jobId);
        expect(event!.type).toBe('mapping');
        expect((event!.payload as Json).cameraMap.cameras[0].confidence).toBe('low');
        const none = await mappingJob();
        await h.completeStage(none.jobId, 'mapping', { cameraMap: null });
        const events = await h.events(none.jobId);
        expect(events.map((e) => e.type)).toEqual(['mapping']);
        expect('cameraMap' in events[0]!.payload).toBe(false);
        // A mapping stage that fails is the same as no proposal.
        const failed = await mappingJob({ autoMap: 'always' });
        await h.failStage(failed.jobId, 'mapping', { message: 'proxy failed' });
        expect(await statusOf(failed.jobId)).toBe('mapping');
        expect((await h.events(failed.jobId)).map((e) => e.type)).toEqual(['mapping']);
      });

      test('with no camera map 30 minutes after speaker detection, mapping is sent without cameraMap (once)', async () => {
        if (!h.canAdvanceClock) return;
        const { jobId } = await mappingJob();
        await h.advanceClock(29 * 60_000);
        expect((await summary(jobId)).status).toBe('mapping');
        expect(await h.events(jobId)).toEqual([]);
        await h.advanceClock(60_000);
        expect((await summary(jobId)).nextAction.type).toBe('map_speakers');
        await getJob(jobId);
        const events = await h.events(jobId);
        expect(events.map((e) => e.type)).toEqual(['mapping']);
        expect('cameraMap' in events[0]!.payload).toBe(false);
      });

      test('a camera the mapping leaves without a speaker is a warning on the Job naming it; mapping it clears the warning', async () => {
        const { jobId, a, b } = await mappingJob({ autoMap: 'always' });
        const map = sureMap(a, b);
        // A wide of both on camera A (so the service can map), nobody matched on camera B.
        map.cameras[0] = { sourceId: a, kind: 'wide', confidence: 'high', speakers: ['SPEAKER_00', 'SPEAKER_01'] };
        map.cameras[1] = {
          sourceId: b,
          kind: 'unknown',
          confidence: 'none',
          speakers: [],
          evidence: 'faces',
          faces: 1,
        };
        await h.completeStage(jobId, 'mapping', { cameraMap: map });
        expect(await statusOf(jobId)).toBe('ready');
        const job = (await getJob(jobId)).job;
        const unused = (job.warnings as Json[]).filter((w) => w.code === 'camera_unused');
        expect(unused).toHaveLength(1);
        expect(unused[0]).toMatchObject({ sourceId: b, stage: 'mapping' });
        expect(unused[0]!.message).toMatch(
          /camera "Cam B" is not used in the edit: no one was matched to it \(1 face seen/,
        );
        expect(unused[0]!.message).toContain("--map 'Cam B=SPEAKER'");
        expect((await summary(jobId)).warnings.map((w: Json) => w.code)).toContain('camera_unused');
        // A person says who is on it: the warning goes.
        const tracks = [
          { sourceId: a, speakers: ['SPEAKER_00'] },
          { sourceId: b, speakers: ['SPEAKER_01'] },
        ];
        const r = await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks, cuts: job.cuts } });
        expect(r.status, r.text).toBe(200);
        const after = (await getJob(jobId)).job;
        expect((after.warnings as Json[]).some((w) => w.code === 'camera_unused')).toBe(false);
      });

      test('always uses likely answers; with review false the render starts at once', async () => {
        const { jobId, a, b } = await mappingJob({ autoMap: 'always', review: false });
        await h.completeStage(jobId, 'mapping', { cameraMap: unsureMap(a, b) });
        expect(await statusOf(jobId)).toBe('rendering');
        expect((await h.events(jobId)).map((e) => e.type)).toEqual(['ready']);
        expect(await pending(jobId)).toEqual(['rendering']);
        const s = await summary(jobId);
        expect(s.progress).toBe(0);
        expect(s.nextAction.type).toBe('wait');
      });
    });

    // ---------------------------------------------------------------- submitSpeakerMapping
    group('submitSpeakerMapping', () => {
      test('in mapping: saves tracks, generates cuts, moves to ready with the ready event', async () => {
        const { jobId, a, b } = await mappingJob({ autoMap: 'off' });
        const tracks = [
          { sourceId: a, speakers: ['SPEAKER_00'] },
          { sourceId: b, speakers: ['SPEAKER_01'] },
        ];
        const r = await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks } });
        expect(r.status, r.text).toBe(200);
        expect(body(r).jobId).toBe(jobId);
        expect(body(r).success).toBe(true);
        expect(body(r).cuts.length).toBeGreaterThan(0);
        const job = (await getJob(jobId)).job;
        expect(job.status).toBe('ready');
        expect(job.tracks).toEqual(tracks);
        expect(job.cuts).toEqual(body(r).cuts);
        expect((await h.events(jobId)).map((e) => e.type)).toEqual(['mapping', 'ready']);
        expect(await pending(jobId)).toEqual(['mapping']);
        // The camera map arriving later decides nothing: whichever arrives first wins.
        await h.completeStage(jobId, 'mapping', { cameraMap: sureMap(b, a) });
        expect((await getJob(jobId)).job.tracks).toEqual(tracks);
        expect((await h.events(jobId)).map((e) => e.type)).toEqual(['mapping', 'ready']);
      });

      test('review false: the render starts with the mapping', async () => {
        const { jobId, a, b } = await mappingJob({ autoMap: 'off', review: false });
        const r = await call('POST', `/jobs/${jobId}/tracks`, {
          json: {
            tracks: [
              { sourceId: a, speakers: ['SPEAKER_00'] },
              { sourceId: b, speakers: ['SPEAKER_01'] },
            ],
          },
        });
        expect(r.status).toBe(200);
        expect(await statusOf(jobId)).toBe('rendering');
        expect(await pending(jobId)).toContain('rendering');
      });

      test('UNKNOWN_SOURCE, EMPTY_MAPPING and malformed tracks are 400; before mapping it is 409 INVALID_STATUS', async () => {
        const created = await createJob({ sources: [{ label: 'A' }, { label: 'B' }, { label: 'Mic', kind: 'audio' }] });
        const early = expectError(
          await call('POST', `/jobs/${created.jobId}/tracks`, { json: { tracks: [] } }),
          409,
          'INVALID_STATUS',
        );
        expect(early.status).toBe('created');
        const { jobId, a } = await mappingJob({ autoMap: 'off' });
        const mic = Object.keys(created.uploads)[2]!;
        const unknown = expectError(
          await call('POST', `/jobs/${jobId}/tracks`, {
            json: { tracks: [{ sourceId: mic, speakers: ['SPEAKER_00'] }] },
          }),
          400,
          'UNKNOWN_SOURCE',
        );
        expect(unknown.error).toContain('tracks[0].sourceId');
        expectError(
          await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks: [{ sourceId: a, speakers: [] }] } }),
          400,
          'EMPTY_MAPPING',
        );
        expectError(await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks: [] } }), 400, 'EMPTY_MAPPING');
        expect(body(await call('POST', `/jobs/${jobId}/tracks`, { json: {} })).error).toContain('tracks');
        expect(
          body(
            await call('POST', `/jobs/${jobId}/tracks`, {
              json: { tracks: [{ sourceId: a, speakers: 'SPEAKER_00' }] },
            }),
          ).error,
        ).toContain('tracks[0].speakers');
        expectError(
          await call('POST', `/jobs/${jobId}/tracks`, {
            body: 'nope',
            headers: { 'content-type': 'application/json' },
          }),
          400,
        );
        expect(await statusOf(jobId)).toBe('mapping');
      });

      test('after the service mapped: the same mapping again is 409; a change without cuts is CUTS_REQUIRED; with cuts it is saved silently', async () => {
        const { jobId, a, b } = await mappingJob();
        await h.completeStage(jobId, 'mapping', { cameraMap: sureMap(a, b) });
        const job = (await getJob(jobId)).job;
        const second = expectError(
          await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks: job.tracks } }),
          409,
          'INVALID_STATUS',
        );
        expect(second.status).toBe('ready');
        const swapped = [
          { sourceId: a, speakers: ['SPEAKER_01'] },
          { sourceId: b, speakers: ['SPEAKER_00'] },
        ];
        expectError(await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks: swapped } }), 400, 'CUTS_REQUIRED');
        const cuts = job.cuts.map((c: Json) => ({ ...c, sourceId: c.sourceId === a ? b : a }));
        const r = await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks: swapped, cuts } });
        expect(r.status, r.text).toBe(200);
        const after = (await getJob(jobId)).job;
        expect(after.status).toBe('ready');
        expect(after.tracks).toEqual(swapped);
        expect(after.cuts.map((c: Json) => c.sourceId)).toEqual(cuts.map((c: Json) => c.sourceId));
        expect((await h.events(jobId)).map((e) => e.type)).toEqual(['ready']);
        expect(await pending(jobId)).toEqual([]);
      });
    });

    // ---------------------------------------------------------------- nameSpeakers (additive)
    group('nameSpeakers (additive: PUT /jobs/{id}/speakers)', () => {
      test('names the detected speakers; the job shows them; a PUT replaces every name; no status change or event', async () => {
        const { jobId, cuts } = await readyJob();
        const eventsBefore = (await h.events(jobId)).length;
        const r = await call('PUT', `/jobs/${jobId}/speakers`, {
          json: { names: { SPEAKER_00: '  Ana  ', SPEAKER_01: 'Bo Li' } },
        });
        expect(r.status, r.text).toBe(200);
        expect(body(r)).toEqual({ jobId, speakerNames: { SPEAKER_00: 'Ana', SPEAKER_01: 'Bo Li' }, success: true });
        let job = (await getJob(jobId)).job;
        expect(job.speaker_names).toEqual({ SPEAKER_00: 'Ana', SPEAKER_01: 'Bo Li' });
        expect(job.status).toBe('ready');
        expect(job.cuts).toEqual(cuts);
        expect((await h.events(jobId)).length).toBe(eventsBefore);
        // A speaker left out or named "" has no name.
        const again = await call('PUT', `/jobs/${jobId}/speakers`, { json: { names: { SPEAKER_01: '' } } });
        expect(again.status, again.text).toBe(200);
        job = (await getJob(jobId)).job;
        expect(job.speaker_names).toEqual({});
      });

      test('bad names are 400 naming the field and change nothing', async () => {
        const { jobId } = await readyJob();
        const ok = await call('PUT', `/jobs/${jobId}/speakers`, { json: { names: { SPEAKER_00: 'Ana' } } });
        expect(ok.status, ok.text).toBe(200);
        const bad = async (json: unknown, field: string): Promise<void> => {
          const r = await call('PUT', `/jobs/${jobId}/speakers`, { json });
          expect(expectError(r, 400).error).toContain(field);
        };
        await bad({}, 'names');
        await bad({ names: ['Ana'] }, 'names');
        await bad({ names: { SPEAKER_09: 'Zed' } }, 'names.SPEAKER_09');
        await bad({ names: { SPEAKER_00: 7 } }, 'names.SPEAKER_00');
        await bad({ names: { SPEAKER_00: 'x'.repeat(61) } }, 'names.SPEAKER_00');
        await bad({ names: { SPEAKER_00: 'A\nB' } }, 'names.SPEAKER_00');
        await bad({ names: { SPEAKER_00: 'Sam', SPEAKER_01: 'sam' } }, 'names.SPEAKER_01');
        await bad({ names: { SPEAKER_00: 'SPEAKER_01' } }, 'names.SPEAKER_00');
        expect((await getJob(jobId)).job.speaker_names).toEqual({ SPEAKER_00: 'Ana' });
      });

      test('before speakers are detected it is 409 INVALID_STATUS; exports carry the names in their notes', async () => {
        const { jobId } = await processingJob();
        const early = await call('PUT', `/jobs/${jobId}/speakers`, { json: { names: {} } });
        expect(expectError(early, 409, 'INVALID_STATUS').status).toBe('syncing');
        const ready = await readyJob();
        await call('PUT', `/jobs/${ready.jobId}/speakers`, {
          json: { names: { SPEAKER_00: 'Ana', SPEAKER_01: 'Bo' } },
        });
        const edl = await call('GET', `/jobs/${ready.jobId}/export?format=edl`);
        expect(edl.status, edl.text).toBe(200);
        const comments = edl.text.split('\n').filter((l) => l.startsWith('* COMMENT: '));
        expect(comments.length).toBeGreaterThan(0);
        expect(comments.some((l) => l.includes('Ana') || l.includes('Bo'))).toBe(true);
        expect(comments.some((l) => l.includes('SPEAKER_0'))).toBe(false);
      });
    });

    // ---------------------------------------------------------------- recut and updateCuts
    group('recutJob and updateCuts', () => {
      test('recut regenerates cuts and removed ranges with the preset and silence settings', async () => {
        const { jobId } = await readyJob();
        const r = await call('POST', `/jobs/${jobId}/recut`, {
          json: { presetId: 'dynamic', silence: { mode: 'remove', minPauseSec: 0.5 } },
        });
        expect(r.status, r.text).toBe(200);
        const b = body(r);
        expect(b).toMatchObject({
          jobId,
          presetId: 'dynamic',
          success: true,
          silence: { mode: 'remove', minPauseSec: 0.5, keepPauseSec: 0.7, paddingSec: 0.25 },
        });
        expect(Array.isArray(b.cuts)).toBe(true);
        expect(Array.isArray(b.removedRanges)).toBe(true);
        expect(typeof b.savedMs).toBe('number');
        const job = (await getJob(jobId)).job;
        expect(job.cuts).toEqual(b.cuts);
        expect(job.removed_ranges).toEqual(b.removedRanges);
        // Omitting silence keeps the stored setting.
        expect(body(await call('POST', `/jobs/${jobId}/recut`, { json: { presetId: 'relaxed' } })).silence.mode).toBe(
          'remove',
        );
        expect(
          body(await call('POST', `/jobs/${jobId}/recut`, { json: { presetId: 'relaxed', silence: { mode: 'off' } } }))
            .savedMs,
        ).toBe(0);
        expect(body(await call('POST', `/jobs/${jobId}/recut`, { json: { presetId: 'frantic' } })).error).toContain(
          'presetId',
        );
        expectError(await call('POST', `/jobs/${jobId}/recut`, { json: {} }), 400);
        expect(
          body(
            await call('POST', `/jobs/${jobId}/recut`, {
              json: { presetId: 'balanced', silence: { mode: 'tighten', paddingSec: 5 } },
            }),
          ).error,
        ).toContain('silence.paddingSec');
        expect(await statusOf(jobId)).toBe('ready');
      });

      test('updateCuts replaces cuts and/or removed ranges; validates them; needs ready or complete', async () => {
        const { jobId, a, b } = await readyJob();
        const cuts = [
          { startMs: 0, endMs: 60_000, sourceId: a },
          { startMs: 60_000, endMs: 150_000, sourceId: b },
        ];
        const r = await call('PATCH', `/jobs/${jobId}/cuts`, { json: { cuts } });
        expect(r.status, r.text).toBe(200);
        expect(body(r)).toEqual({ jobId, success: true });
        expect((await getJob(jobId)).job.cuts).toEqual(cuts);
        const ranges = [{ startMs: 10_000, endMs: 12_000 }];
        expect((await call('PATCH', `/jobs/${jobId}/cuts`, { json: { removedRanges: ranges } })).status).toBe(200);
        expect((await getJob(jobId)).job.removed_ranges).toEqual(ranges);
        expectError(await call('PATCH', `/jobs/${jobId}/cuts`, { json: {} }), 400);
        expect(
          body(await call('PATCH', `/jobs/${jobId}/cuts`, { json: { cuts: [{ startMs: 5, endMs: 1, sourceId: a }] } }))
            .error,
        ).toContain('cuts[0]');
        expect(
          body(
            await call('PATCH', `/jobs/${jobId}/cuts`, { json: { cuts: [{ startMs: 'x', endMs: 1, sourceId: a }] } }),
          ).error,
        ).toContain('cuts[0].startMs');
        expect(
          body(await call('PATCH', `/jobs/${jobId}/cuts`, { json: { cuts: [{ startMs: 0, endMs: 1 }] } })).error,
        ).toContain('cuts[0].sourceId');
        expect((await getJob(jobId)).job.cuts).toEqual(cuts);
        const other = await mappingJob({ autoMap: 'off' });
        expect(
          expectError(await call('PATCH', `/jobs/${other.jobId}/cuts`, { json: { cuts } }), 409, 'INVALID_STATUS')
            .status,
        ).toBe('mapping');
        expect(
          expectError(
            await call('POST', `/jobs/${other.jobId}/recut`, { json: { presetId: 'balanced' } }),
            409,
            'INVALID_STATUS',
          ).status,
        ).toBe('mapping');
      });

      test('updateCuts takes the gains per source (additive audio.gains); the Job shows them; a bad one changes nothing', async () => {
        const { jobId, a, b } = await readyJob();
        const before = (await getJob(jobId)).job;
        expect(before.audio).toEqual({ loudness: -16, truePeak: -1, gains: {} });
        const r = await call('PATCH', `/jobs/${jobId}/cuts`, { json: { audio: { gains: { [a]: -6, [b]: 'mute' } } } });
        expect(r.status, r.text).toBe(200);
        let job = (await getJob(jobId)).job;
        expect(job.audio.gains).toEqual({ [a]: -6, [b]: 'mute' });
        expect(job.cuts).toEqual(before.cuts);
        // A PATCH with gains holds every gain in force: a source left out is back at 0 dB.
        expect((await call('PATCH', `/jobs/${jobId}/cuts`, { json: { audio: { gains: { [a]: 2.5 } } } })).status).toBe(
          200,
        );
        expect((await getJob(jobId)).job.audio.gains).toEqual({ [a]: 2.5 });
        const bad: Array<[unknown, string]> = [
          [{ gains: { [a]: 13 } }, `audio.gains.${a} must be a number from -12 to 12 (dB) or "mute"`],
          [{ gains: { [a]: '-6' } }, `audio.gains.${a} must be a number from -12 to 12 (dB) or "mute"`],
          [{ gains: { nope: 0 } }, 'audio.gains.nope: nope is not a source of this job'],
          [{ gains: [] }, 'audio.gains must be an object from source ids to dB or "mute"'],
          [{}, 'audio.gains is required'],
          ['loud', 'audio must be an object'],
        ];
        for (const [audio, message] of bad) {
          const cuts = [{ startMs: 0, endMs: 1000, sourceId: a }];
          expect(expectError(await call('PATCH', `/jobs/${jobId}/cuts`, { json: { cuts, audio } }), 400).error).toBe(
            message,
          );
        }
        job = (await getJob(jobId)).job;
        expect(job.audio.gains).toEqual({ [a]: 2.5 });
        expect(job.cuts).toEqual(before.cuts);
      });

      test('the Job shows the levels speaker detection measured (additive audio.levels), and the exports carry the clip gains', async () => {
        const { jobId, a, b } = await processingJob({ autoMap: 'off' });
        await h.completeStage(jobId, 'syncing', { durationsMs: { [a]: 150_000, [b]: 150_000 } });
        // No mics: the cameras' own sound is what the edit hears, so their levels are the clips'.
        const levels: RecordedLevels = {
          speech_target_lufs: -24.5,
          sources: [
            {
              source_id: a,
              integrated_lufs: -23.1,
              speakers: [{ speaker: 'SPEAKER_00', speech_lufs: -21.5, gain_db: -3, speech_sec: 61.2 }],
            },
          ],
        };
        await h.completeStage(jobId, 'diarizing', { turns: LONG_TURNS, levels });
        expect((await getJob(jobId)).job.audio).toEqual({ loudness: -16, truePeak: -1, gains: {}, levels });
        const tracks = [
          { sourceId: a, speakers: ['SPEAKER_00'] },
          { sourceId: b, speakers: ['SPEAKER_01'] },
        ];
        expect((await call('POST', `/jobs/${jobId}/tracks`, { json: { tracks } })).status).toBe(200);
        // At ready, before any render: the levelling planned (−3 dB) plus the person's gain (−1.5 dB).
        expect((await call('PATCH', `/jobs/${jobId}/cuts`, { json: { audio: { gains: { [a]: -1.5 } } } })).status).toBe(
          200,
        );
        const fcpxml = await call('GET', `/jobs/${jobId}/export?format=fcpxml`);
        expect(fcpxml.status, fcpxml.text).toBe(200);
        expect(fcpxml.text).toContain('<adjust-volume amount="-4.5dB"/>');
        const edl = await call('GET', `/jobs/${jobId}/export?format=edl`);
        expect(edl.text).toContain('* AUDIO GAIN: -4.5 DB (LEVELLING -3, NUDGE -1.5)');
      });
    });

    // ---------------------------------------------------------------- render and approve
    group('startRender, render results and approveJob', () => {
      test('render: progress while rendering, then complete with the complete event and a download that answers Range', async () => {
        const { jobId } = await readyJob({ callbackUrl: 'https://hooks.example.com/x' });
        const r = await call('POST', `/jobs/${jobId}/render`);
        expect(r.status, r.text).toBe(200);
        expect(body(r)).toEqual({ jobId, status: 'rendering' });
        expect((await summary(jobId)).progress).toBe(0);
        await h.completeStage(jobId, 'rendering', { outputBytes: new TextEncoder().encode('0123456789abcdef') });
        const s = await summary(jobId);
        expect(s.status).toBe('complete');
        expect(s.progress).toBeNull();
        expect(s.nextAction.type).toBe('download');
        expect(s.nextAction.url).toBe(s.outputUrl);
        const job = (await getJob(jobId)).job;
        expect(job.output_url).toMatch(/^https?:\/\//);
        const events = await h.events(jobId);
        expect(events.map((e) => e.type)).toEqual(['mapping', 'ready', 'complete']);
        const outputUrl = (events[2]!.payload as Json).outputUrl as string;
        expect((await h.request(outputUrl)).text).toBe('0123456789abcdef');
        const range = await h.request(job.output_url, { headers: { range: 'bytes=10-' } });
        expect(range.status).toBe(206);
        expect(range.text).toBe('abcdef');
        if (h.canAdvanceClock) {
          // The event's outputUrl stays valid seven days after the render.
          await h.advanceClock(6 * 24 * HOUR);
          expect((await h.request(outputUrl)).status).toBe(200);
          await h.advanceClock(24 * HOUR + 1000);
          expectError(await h.request(outputUrl), 403);
        }
      });

      test('render again from complete; INVALID_STATUS outside ready/complete; NO_CUTS without cuts', async () => {
        const { jobId } = await completeJob();
        expect((await call('POST', `/jobs/${jobId}/render`)).status).toBe(200);
        expect(await statusOf(jobId)).toBe('rendering');
        const busy = expectError(await call('POST', `/jobs/${jobId}/render`), 409, 'INVALID_STATUS');
        expect(busy.status).toBe('rendering');
        await h.completeStage(jobId, 'rendering');
        expect(await statusOf(jobId)).toBe('complete');
        // Nobody spoke: the mapping yields no cuts.
        const bare = await processingJob({ autoMap: 'off' });
        await h.completeStage(bare.jobId, 'syncing');
        await h.completeStage(bare.jobId, 'diarizing', { turns: [] });
        const mapped = await call('POST', `/jobs/${bare.jobId}/tracks`, {
          json: { tracks: [{ sourceId: bare.a, speakers: ['SPEAKER_00', 'SPEAKER_01'] }] },
        });
        expect(mapped.status, mapped.text).toBe(200);
        expect(body(mapped).cuts).toEqual([]);
        expectError(await call('POST', `/jobs/${bare.jobId}/render`), 409, 'NO_CUTS');
      });

      test('approve: complete → approved with the approved event; otherwise 409 INVALID_STATUS with status', async () => {
        const ready = await readyJob();
        expect(expectError(await call('POST', `/jobs/${ready.jobId}/approve`), 409, 'INVALID_STATUS').status).toBe(
          'ready',
        );
        const { jobId } = await completeJob();
        const r = await call('POST', `/jobs/${jobId}/approve`);
        expect(r.status, r.text).toBe(200);
        expect(body(r)).toEqual({ jobId, status: 'approved' });
        const events = await h.events(jobId);
        expect(events.map((e) => e.type)).toEqual(['mapping', 'ready', 'complete', 'approved']);
        const approved = events[3]!.payload as Json;
        expect(approved).toMatchObject({ jobId, status: 'approved' });
        expect((await h.request(approved.outputUrl)).text).toBe('rendered video bytes 0123456789');
        const s = await summary(jobId);
        expect(s.status).toBe('approved');
        expect(s.nextAction.type).toBe('download');
        expect(expectError(await call('POST', `/jobs/${jobId}/approve`), 409, 'INVALID_STATUS').status).toBe(
          'approved',
        );
        expectError(await call('POST', `/jobs/${jobId}/render`), 409, 'INVALID_STATUS');
      });
    });

    // ---------------------------------------------------------------- failures and retryJob
    group('stage failures and retryJob', () => {
      test('a stage failing once is retried automatically; failing again fails the job with the failed event', async () => {
        const { jobId } = await processingJob();
        await h.failStage(jobId, 'syncing', { message: 'no overlap found' });
        expect(await statusOf(jobId)).toBe('syncing');
        expect(await pending(jobId)).toEqual(['syncing']);
        expect(await h.events(jobId)).toEqual([]);
        await h.failStage(jobId, 'syncing', { message: 'no overlap found' });
        const s = await summary(jobId);
        expect(s).toMatchObject({ status: 'failed', error: 'no overlap found', failedAtStatus: 'syncing' });
        expect(s.nextAction.type).toBe('retry');
        const job = (await getJob(jobId)).job;
        expect(job).toMatchObject({ error_message: 'no overlap found', failed_at_status: 'syncing' });
        const events = await h.events(jobId);
        expect(events.map((e) => e.payload)).toEqual([
          { jobId, status: 'failed', error: 'no overlap found', failedAtStatus: 'syncing' },
        ]);
        const r = await call('POST', `/jobs/${jobId}/retry`);
        expect(r.status, r.text).toBe(200);
        expect(body(r)).toEqual({ jobId, status: 'syncing' });
        expect(await pending(jobId)).toEqual(['syncing']);
        const after = (await getJob(jobId)).job;
        expect(after.error_message).toBeNull();
        expect(after.failed_at_status).toBeNull();
      });

      test('unreadable files fail at once; nextAction contact_support; retryJob is 422', async () => {
        const { jobId } = await processingJob();
        await h.failStage(jobId, 'syncing', { message: 'Cam B is damaged', permanent: true });
        const s = await summary(jobId);
        expect(s.status).toBe('failed');
        expect(s.nextAction.type).toBe('contact_support');
        expect(s.nextAction.url).toMatch(/^mailto:/);
        expectError(await call('POST', `/jobs/${jobId}/retry`), 422);
        expectError(await call('POST', `/jobs/${jobId}/retry`, { json: { diarizeSourceIds: [] } }), 400);
      });

      test('diarizing failure: retry from diarizing, or from syncing with diarizeSourceIds (validated)', async () => {
        const { jobId, a, b } = await processingJob();
        await h.completeStage(jobId, 'syncing');
        await h.failStage(jobId, 'diarizing', { message: 'no speech' });
        await h.failStage(jobId, 'diarizing', { message: 'no speech' });
        const s = await summary(jobId);
        expect(s).toMatchObject({ status: 'failed', failedAtStatus: 'diarizing' });
        expect(s.nextAction.type).toBe('retry');
        expectError(await call('POST', `/jobs/${jobId}/retry`, { json: { diarizeSourceIds: [] } }), 400);
        expectError(
          await call('POST', `/jobs/${jobId}/retry`, {
            json: { diarizeSourceIds: ['00000000-0000-4000-8000-000000000000'] },
          }),
          400,
        );
        expect(await statusOf(jobId)).toBe('failed');
        const r = await call('POST', `/jobs/${jobId}/retry`, { json: { diarizeSourceIds: [b] } });
        expect(body(r)).toEqual({ jobId, status: 'syncing' });
        await h.completeStage(jobId, 'syncing');
        await h.failStage(jobId, 'diarizing', { message: 'no speech' });
        await h.failStage(jobId, 'diarizing', { message: 'no speech' });
        expect(body(await call('POST', `/jobs/${jobId}/retry`))).toEqual({ jobId, status: 'diarizing' });
        expect(await pending(jobId)).toEqual(['diarizing']);
        void a;
      });

      test('render failure: failed at rendering, retry renders again; retry on a job that is not failed is 409 without a code', async () => {
        const { jobId } = await readyJob();
        expectError(await call('POST', `/jobs/${jobId}/retry`), 409);
        await call('POST', `/jobs/${jobId}/render`);
        await h.failStage(jobId, 'rendering', { message: 'encoder crashed' });
        expect(await statusOf(jobId)).toBe('rendering');
        await h.failStage(jobId, 'rendering', { message: 'encoder crashed' });
        expect((await summary(jobId)).failedAtStatus).toBe('rendering');
        expect((await h.events(jobId)).map((e) => e.type)).toEqual(['mapping', 'ready', 'failed']);
        expect(body(await call('POST', `/jobs/${jobId}/retry`))).toEqual({ jobId, status: 'rendering' });
        await h.completeStage(jobId, 'rendering');
        expect(await statusOf(jobId)).toBe('complete');
      });
    });

    // ---------------------------------------------------------------- deleteJob and quota
    group('deleteJob and quota', () => {
      test('deleteJob works in any status, removes every stored byte and stops the engine work', async () => {
        const { jobId } = await processingJob();
        const urls = (await getJob(jobId)).sourceUrls;
        expect(await pending(jobId)).toEqual(['syncing']);
        const r = await call('DELETE', `/jobs/${jobId}`);
        expect(r.status).toBe(200);
        expect(body(r)).toEqual({ ok: true });
        expectError(await call('GET', `/jobs/${jobId}`), 404);
        expectError(await call('DELETE', `/jobs/${jobId}`), 404);
        for (const url of Object.values(urls)) expectError(await h.request(url as string), 404);
        expect(await pending(jobId)).toEqual([]);
        expect(body(await call('GET', '/jobs')).jobs).toEqual([]);
        const done = await completeJob();
        const output = (await getJob(done.jobId)).job.output_url;
        expect((await call('DELETE', `/jobs/${done.jobId}`)).status).toBe(200);
        expectError(await h.request(output), 404);
      });

      test('usage is billed in input minutes once durations are known; createJob is 403 QUOTA_EXCEEDED when used up, and deleting does not refund', async () => {
        const limited = await h.createAccount({ quotaMinutes: 4 });
        const created = body(
          await call('POST', '/jobs', { key: limited.apiKey, json: { sources: [{ label: 'A' }, { label: 'B' }] } }),
        );
        for (const info of Object.values<Json>(created.uploads))
          await h.request(info.url, { method: 'PUT', body: 'x' });
        expect((await call('POST', `/jobs/${created.jobId}/process`, { key: limited.apiKey })).status).toBe(200);
        expect((await call('POST', '/jobs', { key: limited.apiKey, json: { sources: [{ label: 'A' }] } })).status).toBe(
          200,
        );
        const [a, b] = Object.keys(created.uploads) as [string, string];
        await h.completeStage(created.jobId, 'syncing', { durationsMs: { [a]: 120_000, [b]: 120_000 } });
        const refused = expectError(
          await call('POST', '/jobs', { key: limited.apiKey, json: { sources: [{ label: 'A' }] } }),
          403,
          'QUOTA_EXCEEDED',
        );
        expect(refused.error.length).toBeGreaterThan(0);
        expectError(
          await call('POST', '/jobs', {
            key: limited.apiKey,
            json: { sources: [{ label: 'A' }] },
            headers: { 'idempotency-key': 'q' },
          }),
          403,
          'QUOTA_EXCEEDED',
        );
        expect((await call('DELETE', `/jobs/${created.jobId}`, { key: limited.apiKey })).status).toBe(200);
        expectError(
          await call('POST', '/jobs', { key: limited.apiKey, json: { sources: [{ label: 'A' }] } }),
          403,
          'QUOTA_EXCEEDED',
        );
        // Other accounts are not affected.
        expect((await call('POST', '/jobs', { json: { sources: [{ label: 'A' }] } })).status).toBe(200);
      });
    });
  });
}
