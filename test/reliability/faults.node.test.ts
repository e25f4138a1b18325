/**
 * Faults against the Node handler: storage full (a test double of fake-indexeddb that
 * refuses writes with QuotaExceededError) → 503 with a clear message and nothing changed;
 * deleteJob while a stage runs removes every record of the job; a failing stage is retried
 * once, then the job fails.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { HarnessResponse } from '../contract/harness.ts';
import { createNodeHarness, type NodeHarness } from '../contract/node-harness.ts';
import { FullStorageDouble } from './full-storage-double.ts';
import { countRecords, dumpDatabase, isErrorShape, newTally, summaryLine } from './support.ts';
import { buildWorld, caller } from './world.ts';

type Json = Record<string, any>; // response bodies read loosely, as a client would
const tally = newTally();
const storage = new FullStorageDouble();

describe('faults (Node handler)', () => {
  let h: NodeHarness;
  beforeAll(() => storage.install());
  afterAll(() => {
    storage.uninstall();
    console.log(summaryLine(tally, 'node faults'));
  });
  beforeEach(async () => {
    h = await createNodeHarness();
  });
  afterEach(async () => {
    storage.on = false;
    await h.dispose();
  });

  /** Jobs of the world that getJob no longer returns. */
  async function lostJobs(key: string, jobIds: string[]): Promise<number> {
    let lost = 0;
    for (const id of jobIds) if ((await caller(h, key)('GET', `/jobs/${id}`)).status !== 200) lost++;
    return lost;
  }

  test('storage full: every writing operation answers 503 with a clear message, nothing is half-written, and it recovers', async () => {
    const world = await buildWorld(h);
    const call = caller(h, world.key);
    const fresh = (await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] })).json as Json;
    const j = world.jobs;
    // A job that failed in a way a retry can fix: the stage failed twice (one automatic retry).
    const retryable = world.jobs['processing']!.jobId;
    await h.failStage(retryable, 'syncing', { message: 'first' });
    await h.failStage(retryable, 'syncing', { message: 'second' });
    const syncing = (await buildWorld(h)).jobs['processing']!.jobId;
    const tracks = {
      tracks: [
        { sourceId: j['mapping']!.sourceIds[0], speakers: ['SPEAKER_00'] },
        { sourceId: j['mapping']!.sourceIds[1], speakers: ['SPEAKER_01'] },
      ],
    };
    const writes: Array<[string, () => Promise<HarnessResponse>]> = [
      ['createJob', () => call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] })],
      [
        'upload PUT',
        () =>
          h.request(Object.values(fresh.uploads as Record<string, Json>)[0]!.url, {
            method: 'PUT',
            body: 'bytes '.repeat(100),
          }),
      ],
      ['startProcessing', () => call('POST', `/jobs/${j['created']!.jobId}/process`)],
      ['submitSpeakerMapping', () => call('POST', `/jobs/${j['mapping']!.jobId}/tracks`, tracks)],
      ['recutJob', () => call('POST', `/jobs/${j['ready']!.jobId}/recut`, { presetId: 'dynamic' })],
      [
        'updateCuts',
        () => call('PATCH', `/jobs/${j['ready']!.jobId}/cuts`, { removedRanges: [{ startMs: 0, endMs: 500 }] }),
      ],
      ['startRender', () => call('POST', `/jobs/${j['ready']!.jobId}/render`)],
      ['approveJob', () => call('POST', `/jobs/${j['complete']!.jobId}/approve`)],
      ['retryJob', () => call('POST', `/jobs/${retryable}/retry`)],
    ];
    const before = await dumpDatabase(h.db);
    storage.on = true;
    for (const [what, send] of writes) {
      const refusedBefore = storage.refused;
      const r = await send();
      tally.faults++; // a fault, not a fuzzed request: 503 is the specified answer to full storage
      expect(r.status, `${what}: ${r.text}`).toBe(503);
      expect(isErrorShape(r.json), what).toBe(true);
      expect((r.json as Json).error, what).toMatch(/storage.*QuotaExceededError/);
      expect(r.headers['retry-after'], what).toBeDefined();
      expect(storage.refused, `${what} tried to write`).toBeGreaterThan(refusedBefore);
    }
    // A stage finishing while storage is full: the reporter fails, the job stays where it was.
    await expect(h.completeStage(syncing, 'syncing', { durationsMs: {} })).rejects.toMatchObject({
      name: 'QuotaExceededError',
    });
    tally.faults++;
    storage.on = false;
    expect(await dumpDatabase(h.db)).toEqual(before);
    const ids = [...Object.values(j).map((x) => x.jobId)];
    const lost = await lostJobs(world.key, ids);
    tally.jobsLost += lost;
    expect(lost).toBe(0);
    // Space again: the same operations go through.
    expect((await writes[0]![1]()).status).toBe(200);
    expect((await writes[4]![1]()).status).toBe(200);
    expect((await writes[8]![1]()).status).toBe(200);
  });

  test('deleteJob during a running stage removes every record of the job; the stage finishing later adds nothing back', async () => {
    const { apiKey } = await h.createAccount();
    const call = caller(h, apiKey);
    const baseline = await countRecords(h.db);
    const created = (
      await call('POST', '/jobs', {
        sources: [{ label: 'A' }, { label: 'B' }, { label: 'Big', fileSize: 100 * 1024 * 1024 + 1 }],
        callbackUrl: 'https://hooks.example.com/x',
      })
    ).json as Json;
    const ids = Object.keys(created.uploads);
    for (const id of ids.slice(0, 2))
      expect((await h.request(created.uploads[id].url, { method: 'PUT', body: 'x'.repeat(5000) })).status).toBe(200);
    // A multipart part uploaded too.
    const big = created.uploads[ids[2]!] as Json;
    expect((await h.request(big.urls[0], { method: 'PUT', body: 'p'.repeat(1000) })).status).toBe(200);
    // Drop the big source's upload so the job can process: abort it, then re-create is not needed; process with the two done.
    const jobId = created.jobId as string;
    const during = await countRecords(h.db);
    expect(during.chunks).toBeGreaterThan(baseline.chunks!);
    expect(during.parts).toBeGreaterThan(baseline.parts!);
    const other = (await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] })).json as Json;
    for (const info of Object.values<Json>(other.uploads))
      expect((await h.request(info.url, { method: 'PUT', body: 'y'.repeat(300) })).status).toBe(200);
    expect((await call('POST', `/jobs/${other.jobId}/process`)).status).toBe(200);
    await h.completeStage(other.jobId, 'syncing', { durationsMs: {} });
    await h.completeStage(other.jobId, 'diarizing', {});
    await h.completeStage(other.jobId, 'mapping', { cameraMap: null });
    const [s0, s1] = Object.keys(other.uploads) as [string, string];
    expect(
      (
        await call('POST', `/jobs/${other.jobId}/tracks`, {
          tracks: [
            { sourceId: s0, speakers: ['SPEAKER_00'] },
            { sourceId: s1, speakers: ['SPEAKER_01'] },
          ],
        })
      ).status,
    ).toBe(200);
    expect((await call('POST', `/jobs/${other.jobId}/render`)).status).toBe(200);
    const withOther = await countRecords(h.db);
    // Now delete the second job while its rendering stage is pending (running), and the first with its parts.
    expect((await h.pendingStages()).filter((w) => w.jobId === other.jobId).map((w) => w.stage)).toEqual(['rendering']);
    expect((await call('DELETE', `/jobs/${other.jobId}`)).status).toBe(200);
    tally.faults++;
    expect(h.engine.cancelled).toContain(other.jobId);
    expect((await call('DELETE', `/jobs/${jobId}`)).status).toBe(200);
    // meta holds installation counters (the job sequence), not job data.
    const { meta: _m1, ...after } = await countRecords(h.db);
    const { meta: _m2, ...base } = baseline;
    expect(after).toEqual(base);
    expect(JSON.stringify(await h.db.getAll('meta'))).not.toContain(jobId);
    expect(withOther.events).toBeGreaterThan(baseline.events!);
    // A stage of the deleted job that finishes anyway (a report already on its way) is ignored.
    await h.service.reporter
      .stageSucceeded(other.jobId, 'rendering', { output: new Blob([new Uint8Array(4096)]) })
      .catch(() => undefined);
    const { meta: _m3, ...late } = await countRecords(h.db);
    expect(late).toEqual(base);
    expect((await call('GET', `/jobs/${other.jobId}`)).status).toBe(404);
  });

  test('a stage that fails (a worker crash) is retried once, then the job fails with the message; nothing else changes', async () => {
    const world = await buildWorld(h);
    const call = caller(h, world.key);
    const job = world.jobs['processing']!;
    await h.failStage(job.jobId, 'syncing', { message: 'media worker crashed (injected)' });
    tally.faults++;
    let summary = (await call('GET', `/jobs/${job.jobId}?view=summary`)).json as Json;
    expect(summary.status).toBe('syncing');
    expect((await h.pendingStages()).filter((w) => w.jobId === job.jobId).map((w) => w.stage)).toEqual(['syncing']);
    await h.failStage(job.jobId, 'syncing', { message: 'media worker crashed again (injected)' });
    tally.faults++;
    summary = (await call('GET', `/jobs/${job.jobId}?view=summary`)).json as Json;
    expect(summary.status).toBe('failed');
    const full = ((await call('GET', `/jobs/${job.jobId}`)).json as Json).job;
    expect(full.error_message).toContain('crashed again');
    expect(full.failed_at_status).toBe('syncing');
    expect((await h.pendingStages()).filter((w) => w.jobId === job.jobId)).toEqual([]);
    expect((await h.events(job.jobId)).map((e) => e.type)).toEqual(['failed']);
    const lost = await lostJobs(
      world.key,
      Object.values(world.jobs).map((x) => x.jobId),
    );
    tally.jobsLost += lost;
    expect(lost).toBe(0);
  });
});
