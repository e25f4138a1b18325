/**
 * The export route, `GET {base}/jobs/{id}/export`, through the Node harness (the real handler
 * over fake-indexeddb, the test engine) and through the typed client.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MulticamClient } from '../../../src/client/client.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import type { GetJobResponse } from '../../../src/contract/types.ts';
import { exportEdit } from '../../../src/export/index.ts';
import { createNodeHarness, toRequest, type NodeHarness } from '../../contract/node-harness.ts';
import { readEdl, readFcpxml, readOtio, readXmeml } from './read-back.ts';

type Json = Record<string, any>; // loosely typed on purpose: the tests read response bodies as a client would

let h: NodeHarness;
let key: string;

beforeEach(async () => {
  h = await createNodeHarness();
  key = (await h.createAccount()).apiKey;
});
afterEach(async () => {
  await h.dispose();
});

async function call(
  method: string,
  rest: string,
  json?: unknown,
  apiKey = key,
): Promise<{ status: number; headers: Record<string, string>; text: string; json: Json }> {
  const r = await h.request(h.baseUrl + rest, {
    method,
    headers: { authorization: `Bearer ${apiKey}` },
    ...(json === undefined ? {} : { json }),
  });
  return { status: r.status, headers: r.headers, text: r.text, json: r.json as Json };
}

/** A job with two cameras and a mic, synced (offsets, drift), in mapping. */
async function mappingJob(): Promise<{ jobId: string; a: string; b: string; m: string }> {
  const created = (
    await call('POST', '/jobs', {
      title: 'Ep 7: Q&A',
      autoMap: 'off',
      sources: [{ label: 'Cam A' }, { label: 'Cam B', ext: 'mov' }, { label: 'Host mic', kind: 'audio', ext: 'wav' }],
    })
  ).json;
  for (const info of Object.values<Json>(created.uploads))
    expect((await h.request(info.url, { method: 'PUT', body: 'bytes '.repeat(20) })).status).toBe(200);
  for (const info of Object.values<Json>(created.audioUploads))
    expect((await h.request(info.url, { method: 'PUT', body: 'audio '.repeat(20) })).status).toBe(200);
  const [a, b] = Object.keys(created.uploads) as [string, string];
  const [m] = Object.keys(created.audioUploads) as [string];
  expect((await call('POST', `/jobs/${created.jobId}/process`)).status).toBe(200);
  // Sync with offsets and drift: the test engine only passes durations, so report through the real reporter.
  h.engine.pending.splice(
    h.engine.pending.findIndex((w) => w.jobId === created.jobId && w.stage === 'syncing'),
    1,
  );
  await h.service.reporter.stageSucceeded(created.jobId, 'syncing', {
    durationsMs: { [a]: 150_000, [b]: 150_000, [m]: 150_000 },
    offsetsMs: { [a]: 0, [b]: 1_480, [m]: 250 },
    driftPpm: { [a]: 0, [b]: 45, [m]: -20 },
  });
  await h.completeStage(created.jobId, 'diarizing', {
    turns: [
      { speaker: 'SPEAKER_00', startMs: 0, endMs: 40_000 },
      { speaker: 'SPEAKER_01', startMs: 40_000, endMs: 75_000 },
      { speaker: 'SPEAKER_00', startMs: 75_000, endMs: 110_000 },
    ],
  });
  return { jobId: created.jobId, a, b, m };
}

async function readyJob(): Promise<{ jobId: string; a: string; b: string; m: string }> {
  const job = await mappingJob();
  const r = await call('POST', `/jobs/${job.jobId}/tracks`, {
    tracks: [
      { sourceId: job.a, speakers: ['SPEAKER_00'] },
      { sourceId: job.b, speakers: ['SPEAKER_01'] },
    ],
  });
  expect(r.status, r.text).toBe(200);
  const cuts = [
    { sourceId: job.a, startMs: 0, endMs: 40_010.7 },
    { sourceId: job.b, startMs: 40_010.7, endMs: 75_333 },
    { sourceId: job.a, startMs: 75_333, endMs: 110_000 },
    { sourceId: job.b, startMs: 110_000, endMs: 151_480 },
  ];
  const removedRanges = [
    { startMs: 0, endMs: 2_000 },
    { startMs: 60_000, endMs: 61_500 },
  ];
  const patched = await call('PATCH', `/jobs/${job.jobId}/cuts`, { cuts, removedRanges });
  expect(patched.status, patched.text).toBe(200);
  return job;
}

describe('GET /jobs/{id}/export', () => {
  test('200 with each format: the document, its type and a file name; the edit reads back synced', async () => {
    const { jobId, b } = await readyJob();
    const job = ((await call('GET', `/jobs/${jobId}`)).json as GetJobResponse).job;
    expect(job.sources.find((s) => s.id === b)).toMatchObject({ offsetMs: 1_480, driftPpm: 45 });
    const expectations = [
      ['fcpxml', 'application/xml', 'Ep 7_ Q&A.fcpxml'],
      ['xmeml', 'application/xml', 'Ep 7_ Q&A.xml'],
      ['otio', 'application/json', 'Ep 7_ Q&A.otio'],
      ['edl', 'text/plain', 'Ep 7_ Q&A.edl'],
    ] as const;
    for (const [format, type, filename] of expectations) {
      const r = await call('GET', `/jobs/${jobId}/export?format=${format}&fps=25`);
      expect(r.status, r.text).toBe(200);
      expect(r.headers['content-type']).toContain(type);
      expect(r.headers['content-disposition']).toContain(`filename="${filename}"`);
      // The same document the library makes from the job as getJob shows it.
      expect(r.text).toBe(exportEdit(job, format, { fps: 25 }).body);
      const read =
        format === 'fcpxml'
          ? readFcpxml(r.text)
          : format === 'xmeml'
            ? readXmeml(r.text)
            : format === 'otio'
              ? readOtio(r.text)
              : readEdl(r.text, 25);
      // At 25 fps (40 ms frames): Cam B's cut starts at reference 40 010.7 ms → frame 1000; its own time (40 000 − 1 480)·(1 + 45e-6) = 38 521.7 ms → frame 963.
      expect(read.video.map((c) => [c.file, c.recordIn, c.recordOut, c.sourceIn])).toEqual([
        ['Cam A.mp4', 0, 950, 50],
        ['Cam B.mov', 950, 1450, 963],
        ['Cam B.mov', 1450, 1795, 1501],
        ['Cam A.mp4', 1795, 2662, 1883],
        ['Cam B.mov', 2662, 3699, 2713],
      ]);
      expect(read.audio.length).toBeGreaterThan(0);
      expect(read.audio.every((c) => c.file === 'Host mic.wav')).toBe(true);
    }
  });

  test('query options: EDL track and timecode; fps picks the rate', async () => {
    const { jobId } = await readyJob();
    const cam2 = await call('GET', `/jobs/${jobId}/export?format=edl&track=2&fps=29.97&timecode=ndf`);
    expect(cam2.status, cam2.text).toBe(200);
    expect(cam2.headers['content-disposition']).toContain('filename="Ep 7_ Q&A - Cam B.edl"');
    const edl = readEdl(cam2.text, 30);
    expect(edl.fcm).toBe('NON-DROP FRAME');
    expect(edl.events.map((e) => e.reel)).toEqual(['CAM_B', 'CAM_B', 'CAM_B']);
    const df = await call('GET', `/jobs/${jobId}/export?format=edl&fps=29.97`);
    expect(readEdl(df.text, 30).fcm).toBe('DROP FRAME');
    const rooted = await call(
      'GET',
      `/jobs/${jobId}/export?format=xmeml&mediaRoot=${encodeURIComponent('file:///Volumes/Pod/ep 7/')}`,
    );
    expect(rooted.text).toContain('<pathurl>file:///Volumes/Pod/ep%207/Cam%20B.mov</pathurl>');
  });

  test('409 INVALID_STATUS before the job has cuts; 409 NO_CUTS when it has none', async () => {
    const { jobId } = await mappingJob();
    const r = await call('GET', `/jobs/${jobId}/export?format=fcpxml`);
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ code: 'INVALID_STATUS', status: 'mapping' });
    expect(r.json.error).toMatch(/no edit to export/);
  });

  test('400 naming the parameter: unknown or missing format, bad fps, bad track, bad timecode', async () => {
    const { jobId } = await readyJob();
    for (const [query, field] of [
      ['format=aaf', 'format'],
      ['', 'format'],
      ['format=otio&fps=abc', 'fps'],
      ['format=otio&fps=33.3', 'fps'],
      ['format=edl&track=9', 'track'],
      ['format=otio&track=1', 'track'],
      ['format=edl&timecode=smpte', 'timecode'],
      ['format=edl&mediaRoot=javascript:alert(1)', 'mediaRoot'],
      ['format=edl&mediaRoot=relative/dir', 'mediaRoot'],
    ] as const) {
      const r = await call('GET', `/jobs/${jobId}/export?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.json.code).toBeUndefined();
      expect(r.json.error, query).toMatch(new RegExp(`^${field}`));
    }
  });

  test('404 for another account’s job or an unknown job; 401 without a key', async () => {
    const { jobId } = await readyJob();
    const other = (await h.createAccount()).apiKey;
    expect((await call('GET', `/jobs/${jobId}/export?format=edl`, undefined, other)).status).toBe(404);
    expect((await call('GET', `/jobs/job_nope/export?format=edl`)).status).toBe(404);
    expect((await h.request(`${h.baseUrl}/jobs/${jobId}/export?format=edl`)).status).toBe(401);
    expect((await call('POST', `/jobs/${jobId}/export?format=edl`)).status).toBe(405);
  });

  test('a review link token (the hosted editor) may export its own job', async () => {
    const { jobId } = await readyJob();
    const reviewUrl = (await h.events(jobId)).find((e) => e.type === 'mapping')!.payload.reviewUrl as string;
    const token = new URL(reviewUrl).searchParams.get('token')!;
    const r = await h.request(`${h.baseUrl}/jobs/${jobId}/export?format=otio`, {
      headers: { authorization: `Review ${token}` },
    });
    expect(r.status, r.text).toBe(200);
    expect(readOtio(r.text).videoTracks).toBe(2);
  });

  test('the typed client: exportEdit returns the document and file name; errors throw ApiError', async () => {
    const { jobId } = await readyJob();
    const client = new MulticamClient({
      baseUrl: h.baseUrl,
      apiKey: key,
      fetch: (input, init) =>
        h.service.handle(
          toRequest(input instanceof Request ? input.url : input.toString(), {
            method: init?.method ?? 'GET',
            headers: init?.headers as Record<string, string>,
          }),
        ),
    });
    const file = await client.exportEdit(jobId, 'otio', { fps: 24 });
    expect(file.filename).toBe('Ep 7_ Q&A.otio');
    expect(readOtio(file.body).rate).toBe(24);
    const error = await client.exportEdit(jobId, 'edl', { track: 7 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
  });
});
