/**
 * The cameras' proxies over the route handler and fake-indexeddb: which camera is built next,
 * how the Job shows a proxy (pending, ready with a signed Range URL, unavailable with its
 * reason), and that no proxy byte outlives its job (deleteJob, a deletion mid-build, a deletion
 * between the build and its record). The worker's encoder is a TEST DOUBLE here; the browser
 * tier builds real proxies (test/browser/editor.test.ts).
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { MediaClient } from '../../../src/media/client.ts';
import type { BuiltProxy, ProxySink } from '../../../src/media/protocol.ts';
import { nextProxyWork, proxyView, recordProxy } from '../../../src/jobs/proxies.ts';
import { ProxyQueue, type ProxyBuildRecord } from '../../../src/pipeline/proxies.ts';
import type { JobRecord, SourceRecord } from '../../../src/store/db.ts';
import { bearerCaller, createNodeHarness, type LooseJson, type NodeHarness } from '../../contract/node-harness.ts';

let h: NodeHarness;
afterEach(async () => h?.dispose());

type Json = LooseJson;

const call = bearerCaller(() => h);

/** A job of two cameras and a mic, analysed: it waits in mapping. */
async function analysedJob(): Promise<{ apiKey: string; jobId: string; cams: string[]; mic: string }> {
  h = await createNodeHarness();
  const { apiKey } = await h.service.accounts.create({ name: 'test' });
  const created = await call(apiKey, 'POST', '/jobs', {
    sources: [
      { label: 'Cam A', kind: 'video' },
      { label: 'Cam B', kind: 'video' },
      { label: 'Mic', kind: 'audio' },
    ],
    autoMap: 'off',
  });
  for (const up of Object.values<Json>(created.body.uploads))
    expect((await h.request(up.url, { method: 'PUT', body: 'original bytes' })).status).toBe(200);
  const jobId: string = created.body.jobId;
  const [camA, camB, mic] = Object.keys(created.body.uploads) as [string, string, string];
  expect((await call(apiKey, 'POST', `/jobs/${jobId}/process`)).status).toBe(200);
  await h.engine.complete(jobId, 'syncing', { durationsMs: { [camA]: 60_000, [camB]: 60_000, [mic]: 60_000 } });
  await h.engine.complete(jobId, 'diarizing');
  return { apiKey, jobId, cams: [camA, camB], mic };
}

/** The bytes the TEST DOUBLE encoder writes: 20 000 counting bytes, then bytes 8..11 patched to 0xAB (an mdat size). */
const PROXY_BYTES = 20_000;

/**
 * A TEST DOUBLE of the media worker for proxies: `buildProxy` appends {@link PROXY_BYTES} bytes
 * in two pieces and returns a head patch; with `hold`, it waits between the pieces until released
 * (or aborted); with `unavailable`, it answers as a browser that cannot decode the source would.
 */
function proxyMediaDouble(
  o: { hold?: Promise<void>; unavailable?: string; onFirstAppend?: () => void } = {},
): MediaClient & { labels: string[] } {
  const labels: string[] = [];
  const refuse = (): never => {
    throw new Error('the proxy media double only builds proxies');
  };
  return {
    labels,
    probe: refuse,
    decodeAudio: refuse,
    async buildProxy(
      _blob: Blob,
      options: { label: string; sink: ProxySink; signal?: AbortSignal },
    ): Promise<BuiltProxy> {
      labels.push(options.label);
      if (o.unavailable)
        return {
          outcome: 'unavailable',
          reason: o.unavailable,
          width: 0,
          height: 0,
          codec: '',
          size: 0,
          headPatches: [],
        };
      const all = new Uint8Array(PROXY_BYTES).map((_, i) => i % 251);
      await options.sink.append(all.slice(0, 10_000));
      o.onFirstAppend?.();
      if (o.hold) {
        const aborted = new Promise<never>((_, reject) =>
          options.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), {
            once: true,
          }),
        );
        await Promise.race([o.hold, aborted]);
      }
      await options.sink.append(all.slice(10_000));
      return {
        outcome: 'built',
        width: 640,
        height: 360,
        codec: 'avc',
        size: PROXY_BYTES,
        headPatches: [{ position: 8, data: new Uint8Array([0xab, 0xab, 0xab, 0xab]) }],
      };
    },
    async dispose() {},
  };
}

/** A queue over the harness's database whose records arrive on `records`. */
function queueWith(
  media: MediaClient,
  busy = () => false,
): { queue: ProxyQueue; next: () => Promise<ProxyBuildRecord> } {
  const waiting: Array<(r: ProxyBuildRecord) => void> = [];
  const done: ProxyBuildRecord[] = [];
  const queue = new ProxyQueue({
    db: () => h.db,
    busy,
    media: () => media,
    onRecord: (record) => {
      const wake = waiting.shift();
      if (wake) wake(record);
      else done.push(record);
    },
  });
  return {
    queue,
    next: () => (done.length > 0 ? Promise.resolve(done.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

describe('which camera gets its proxy next', () => {
  const source = (id: string, extra: Partial<SourceRecord> = {}): SourceRecord =>
    ({ id, label: id, kind: 'video', ext: 'mp4', fileId: `f-${id}`, ...extra }) as SourceRecord;
  const job = (id: string, seq: number, status: JobRecord['status'], sources: SourceRecord[]) => ({
    id,
    seq,
    status,
    sources,
  });

  test('the oldest analysed job first, its cameras in order; mics, built, refused and skipped ones never', () => {
    const jobs = [
      job('late', 3, 'ready', [source('x')]),
      job('early', 1, 'mapping', [
        source('mic', { kind: 'audio' }),
        source('done', {
          proxyFile: {
            status: 'ready',
            fileId: 'p',
            width: 640,
            height: 360,
            size: 1,
            buildMs: 1,
            durationMs: 1,
            codec: 'avc',
          },
        }),
        source('refused', { proxyFile: { status: 'unavailable', reason: 'no decoder' } }),
        source('skipped'),
        source('cam'),
      ]),
      job('analysing', 2, 'diarizing', [source('y')]),
    ];
    expect(nextProxyWork(jobs, new Set(['early/skipped']))).toEqual({ jobId: 'early', sourceId: 'cam' });
    expect(nextProxyWork(jobs, new Set(['early/skipped', 'early/cam']))).toEqual({ jobId: 'late', sourceId: 'x' });
    expect(nextProxyWork(jobs.slice(2), new Set())).toBeNull();
  });

  test('the Job shows pending, ready, failed and unavailable on cameras once analysed; nothing on mics or before', () => {
    expect(proxyView({ status: 'diarizing' }, source('a'))).toBeUndefined();
    expect(proxyView({ status: 'ready' }, source('m', { kind: 'audio' }))).toBeUndefined();
    expect(proxyView({ status: 'mapping' }, source('a'))).toEqual({ status: 'pending' });
    expect(proxyView({ status: 'ready' }, source('a', { proxyFile: { status: 'failed', reason: 'full' } }))).toEqual({
      status: 'failed',
      reason: 'full',
    });
  });
});

describe('proxies of a job, end to end over the store', () => {
  test('built in turn, shown on the Job with a signed Range URL, the head patched; deleteJob leaves no byte', async () => {
    const { apiKey, jobId, cams, mic } = await analysedJob();
    const before = (await call(apiKey, 'GET', `/jobs/${jobId}`)).body;
    expect(before.job.sources.map((s: Json) => s.proxy)).toEqual([
      { status: 'pending' },
      { status: 'pending' },
      undefined,
    ]);
    const filesBefore = await h.db.count('files');

    const media = proxyMediaDouble();
    const { queue, next } = queueWith(media);
    queue.poke();
    const first = await next();
    const second = await next();
    expect([first, second].map((r) => [r.sourceId, r.outcome, r.bytes])).toEqual([
      [cams[0], 'ready', PROXY_BYTES],
      [cams[1], 'ready', PROXY_BYTES],
    ]);
    expect(first.durationMs).toBe(60_000);
    expect(media.labels).toEqual(['"Cam A"', '"Cam B"']);
    await queue.stop();
    expect(await h.db.count('files')).toBe(filesBefore + 2);

    const got = (await call(apiKey, 'GET', `/jobs/${jobId}`)).body;
    const [proxyA, proxyB, micProxy] = got.job.sources.map((s: Json) => s.proxy);
    expect(proxyA).toMatchObject({ status: 'ready', width: 640, height: 360 });
    expect(proxyB.status).toBe('ready');
    expect(micProxy).toBeUndefined();
    expect(got.sourceUrls[mic]).toBeDefined();
    // The proxy is served like any job file: signed, with Range.
    const ranged = await h.service.handle(new Request(proxyA.url, { headers: { range: 'bytes=4-15' } }));
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 4-15/${PROXY_BYTES}`);
    expect(ranged.headers.get('content-type')).toBe('video/mp4');
    expect([...new Uint8Array(await ranged.arrayBuffer())]).toEqual([
      4, 5, 6, 7, 0xab, 0xab, 0xab, 0xab, 12, 13, 14, 15,
    ]);

    expect((await call(apiKey, 'DELETE', `/jobs/${jobId}`)).status).toBe(200);
    expect(await h.db.count('files')).toBe(0);
    expect(await h.db.count('chunks')).toBe(0);
  });

  test('a job deleted mid-build: the build stops and its partial bytes go', async () => {
    const { apiKey, jobId } = await analysedJob();
    let release = (): void => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    let appended = (): void => undefined;
    const started = new Promise<void>((resolve) => (appended = resolve));
    const { queue, next } = queueWith(proxyMediaDouble({ hold, onFirstAppend: () => appended() }));
    queue.poke();
    await started;
    expect((await call(apiKey, 'DELETE', `/jobs/${jobId}`)).status).toBe(200);
    // The engine's cancel message reaches the queue (the runner passes it on).
    queue.cancel(jobId);
    expect((await next()).outcome).toBe('cancelled');
    release();
    await queue.stop();
    expect(await h.db.count('files')).toBe(0);
    expect(await h.db.count('chunks')).toBe(0);
    expect(await h.db.count('runs')).toBe(0);
  });

  test('a job deleted while its proxy is built, the cancel not heard: the proxy is stored, finds no job, and is deleted', async () => {
    const { apiKey, jobId, cams } = await analysedJob();
    let release = (): void => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    let appended = (): void => undefined;
    const started = new Promise<void>((resolve) => (appended = resolve));
    const { queue, next } = queueWith(proxyMediaDouble({ hold, onFirstAppend: () => appended() }));
    queue.poke();
    await started;
    // Deleted without the cancel reaching the queue: the job is gone when the proxy lands.
    expect((await call(apiKey, 'DELETE', `/jobs/${jobId}`)).status).toBe(200);
    release();
    const record = await next();
    expect([record.sourceId, record.outcome]).toEqual([cams[0], 'cancelled']);
    await queue.stop();
    expect(await h.db.count('files')).toBe(0);
    expect(await h.db.count('chunks')).toBe(0);
    expect(await recordProxy(h.db, jobId, cams[0]!, { status: 'failed', reason: 'x' })).toBe(false);
  });

  test('a browser that cannot make a proxy: unavailable with the reason, nothing stored; a busy engine starts nothing', async () => {
    const { apiKey, jobId } = await analysedJob();
    let busy = true;
    const { queue, next } = queueWith(
      proxyMediaDouble({ unavailable: '"Cam A" is ProRes video, which this browser cannot decode' }),
      () => busy,
    );
    queue.poke();
    await new Promise((r) => setTimeout(r, 20));
    expect(queue.building).toBeNull();
    const filesBefore = await h.db.count('files');
    busy = false;
    queue.poke();
    expect((await next()).outcome).toBe('unavailable');
    expect((await next()).outcome).toBe('unavailable');
    await queue.stop();
    expect(await h.db.count('files')).toBe(filesBefore);
    expect(await h.db.count('runs')).toBe(0);
    const [proxyA] = (await call(apiKey, 'GET', `/jobs/${jobId}`)).body.job.sources.map((s: Json) => s.proxy);
    expect(proxyA).toEqual({
      status: 'unavailable',
      reason: '"Cam A" is ProRes video, which this browser cannot decode',
    });
  });
});
