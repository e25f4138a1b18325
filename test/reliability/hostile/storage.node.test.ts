/**
 * Hostile and unlucky storage cases against the Node handler (fake-indexeddb): a retried
 * completeMultipartUpload racing the first one, two PUTs of one source at once, a job and its
 * Idempotency-Key torn apart by a crash, chunk runs left by a writer that died, downloads of a
 * picked web page, and empty or non-media files.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { IDBObjectStore } from 'fake-indexeddb';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';
import { CHUNK_SIZE } from '../../../src/store/files.ts';
import { sweepOrphanRuns } from '../../../src/store/sweep.ts';

type Json = Record<string, any>; // response bodies read loosely, as a client would

const MB100 = 100 * 1024 ** 2;
/** The start of an MP4 (an `ftyp` box): what the upload check looks for. */
const MP4_HEAD = Uint8Array.from([0, 0, 0, 0x18, ...Array.from('ftypisom', (c) => c.charCodeAt(0))]);

/** `length` bytes of a fake MP4: an `ftyp` box, then a pattern that shows where bytes came from. */
function mp4Bytes(length: number, seed = 0): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + seed) & 255;
  bytes.set(MP4_HEAD.subarray(0, Math.min(length, MP4_HEAD.length)));
  return bytes;
}

let h: NodeHarness;
let key: string;
beforeEach(async () => {
  h = await createNodeHarness();
  key = (await h.createAccount()).apiKey;
});
afterEach(async () => {
  await h.dispose();
});

async function call(method: string, rest: string, json?: unknown, headers: Record<string, string> = {}) {
  return h.request(h.baseUrl + rest, {
    method,
    headers: { authorization: `Bearer ${key}`, ...headers },
    ...(json === undefined ? {} : { json }),
  });
}

async function getJob(jobId: string): Promise<Json> {
  const r = await call('GET', `/jobs/${jobId}`);
  expect(r.status, r.text).toBe(200);
  return r.json as Json;
}

/** Every byte a signed download URL serves. */
async function download(url: string): Promise<Uint8Array> {
  const r = await h.service.handle(new Request(url));
  expect(r.status).toBe(200);
  return new Uint8Array(await r.arrayBuffer());
}

/** A job with a 100 MB + 1 B source whose parts are all uploaded, not yet completed. */
async function uploadedParts(): Promise<{ jobId: string; big: string; up: Json; bytes: Uint8Array }> {
  const size = MB100 + 1;
  const created = await call('POST', '/jobs', { sources: [{ label: 'Big', fileSize: size }, { label: 'Small' }] });
  expect(created.status, created.text).toBe(200);
  const { jobId, uploads } = created.json as Json;
  const [big] = Object.keys(uploads) as [string];
  const up = uploads[big] as Json;
  const { partSize, partCount, uploadId } = up;
  const urls: Record<string, string> = {};
  (up.urls as string[]).forEach((u, i) => (urls[String(i + 1)] = u));
  const missing = Array.from({ length: partCount as number }, (_, i) => i + 1).filter((n) => !urls[String(n)]);
  const more = await call('POST', `/jobs/${jobId}/sources/${big}/parts`, { uploadId, partNumbers: missing });
  expect(more.status, more.text).toBe(200);
  Object.assign(urls, (more.json as Json).urls);
  const bytes = mp4Bytes(size, 3);
  for (let n = 1; n <= partCount; n++) {
    const r = await h.request(urls[String(n)]!, {
      method: 'PUT',
      body: bytes.subarray((n - 1) * partSize, Math.min(size, n * partSize)),
    });
    expect(r.status, r.text).toBe(200);
  }
  return { jobId, big, up, bytes };
}

/** A stream that gives `first` bytes and then waits until `finish` is called (a stalled or dead client). */
function stalledBody(first: Uint8Array): { body: ReadableStream<Uint8Array>; finish: (rest?: Uint8Array) => void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(first);
    },
  });
  return {
    body,
    finish(rest) {
      if (rest) controller.enqueue(rest);
      controller.close();
    },
  };
}

/** Resolves once `check` holds, polling the fake database (no wall-clock assertion). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('completeMultipartUpload retried while the first runs', () => {
  test('two completes at once both answer 200 and the file stays whole, its chunks intact', async () => {
    const { jobId, big, up, bytes } = await uploadedParts();
    const chunksBefore = await h.db.count('chunks');
    const body = { key: up.key, uploadId: up.uploadId };
    const [a, b] = await Promise.all([
      call('POST', '/uploads/complete', body),
      call('POST', '/uploads/complete', body),
    ]);
    expect([a.status, b.status], a.text + b.text).toEqual([200, 200]);
    expect([a.json, b.json]).toEqual([{ ok: true }, { ok: true }]);
    // And once more after both: the same answer, nothing changed.
    expect((await call('POST', '/uploads/complete', body)).json).toEqual({ ok: true });
    expect(await h.db.count('chunks')).toBe(chunksBefore);
    expect(await h.db.count('files')).toBe(1);
    expect(await h.db.count('parts')).toBe(0);
    const got = await download((await getJob(jobId)).sourceUrls[big] as string);
    expect(got.byteLength).toBe(bytes.byteLength);
    expect(Buffer.from(got).equals(Buffer.from(bytes))).toBe(true);
  });
});

describe('two PUTs of one source at once', () => {
  test('the later one wins, its bytes are served whole, and no chunk of either is lost or leaked', async () => {
    const size = CHUNK_SIZE + 10;
    const created = await call('POST', '/jobs', { sources: [{ label: 'A', fileSize: size }, { label: 'B' }] });
    const { jobId, uploads } = created.json as Json;
    const [a] = Object.keys(uploads) as [string];
    const url = uploads[a].url as string;
    const first = mp4Bytes(size, 1);
    const second = mp4Bytes(size, 2);
    const one = stalledBody(first.subarray(0, CHUNK_SIZE));
    const two = stalledBody(second.subarray(0, CHUNK_SIZE));
    const put = (body: ReadableStream<Uint8Array>) =>
      h.service.handle(new Request(url, { method: 'PUT', body, duplex: 'half' } as RequestInit));
    const r1 = put(one.body);
    const r2 = put(two.body);
    await until(async () => (await h.db.count('chunks')) >= 2);
    one.finish(first.subarray(CHUNK_SIZE));
    expect((await r1).status).toBe(200);
    two.finish(second.subarray(CHUNK_SIZE));
    expect((await r2).status).toBe(200);
    const got = await download((await getJob(jobId)).sourceUrls[a] as string);
    expect(Buffer.from(got).equals(Buffer.from(second))).toBe(true);
    // Only the winner's two chunks are left, and one file record.
    expect(await h.db.count('chunks')).toBe(2);
    expect(await h.db.count('files')).toBe(1);
  });
});

/**
 * A TEST DOUBLE of a crash between two writes: any transaction that writes a `done`
 * idempotency record aborts at commit (as if the tab died there), so what it wrote is rolled back.
 */
function crashOnIdempotencyDone(): () => void {
  const proto = IDBObjectStore.prototype;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called back with its own `this`
  const original = proto.put;
  proto.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    const request = original.apply(this, args);
    const value = args[0] as { state?: string };
    if (this.name === 'idempotency' && value.state === 'done') {
      const tx = this.transaction as unknown as { _start(): void; _abort(name: string): void; _requests: unknown[] };
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called back with its own `this`
      const start = tx._start;
      tx._start = function (this: typeof tx) {
        if (this._requests.length === 0) return this._abort('AbortError');
        return start.call(this);
      };
    }
    return request;
  };
  return () => {
    proto.put = original;
  };
}

describe('createJob with an Idempotency-Key', () => {
  test('a crash while recording the key leaves no job behind: the retry creates exactly one', async () => {
    const body = { sources: [{ label: 'A' }, { label: 'B' }] };
    const restore = crashOnIdempotencyDone();
    let first;
    try {
      first = await call('POST', '/jobs', body, { 'idempotency-key': 'crash-1' });
    } finally {
      restore();
    }
    expect(first.status).toBeGreaterThanOrEqual(500);
    // The crashed claim is abandoned after a minute; the client retries with the same key.
    await h.advanceClock(61_000);
    const retry = await call('POST', '/jobs', body, { 'idempotency-key': 'crash-1' });
    expect(retry.status, retry.text).toBe(200);
    const again = await call('POST', '/jobs', body, { 'idempotency-key': 'crash-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((again.json as Json).jobId).toBe((retry.json as Json).jobId);
    const list = (await call('GET', '/jobs')).json as Json;
    expect(list.jobs).toHaveLength(1);
  });
});

describe('the sweeper of orphan chunk runs', () => {
  test('collects runs a dead writer left past the grace period; keeps fresh and referenced runs', async () => {
    const size = CHUNK_SIZE + 10;
    const created = await call('POST', '/jobs', {
      sources: [
        { label: 'A', fileSize: size },
        { label: 'B', fileSize: size },
        { label: 'C', fileSize: size },
      ],
    });
    const { jobId, uploads } = created.json as Json;
    const [a, b, c] = Object.keys(uploads) as [string, string, string];
    const put = (id: string, body: ReadableStream<Uint8Array> | Uint8Array) =>
      h.service.handle(new Request(uploads[id].url as string, { method: 'PUT', body, duplex: 'half' } as RequestInit));
    // A: uploaded whole (referenced by its file record).
    const whole = mp4Bytes(size, 5);
    expect((await put(a, whole)).status).toBe(200);
    // B: its writer wrote one chunk, then died two hours ago.
    const dead = stalledBody(mp4Bytes(CHUNK_SIZE, 6));
    const deadPut = put(b, dead.body);
    await until(async () => (await h.db.count('chunks')) === 3);
    const [deadRun] = (await h.db.getAll('runs')).filter((r) => r.touchedAt !== undefined);
    expect(deadRun).toBeDefined();
    await h.db.put('runs', { ...deadRun!, touchedAt: Date.now() - 2 * 60 * 60 * 1000 });
    // C: being written right now.
    const live = stalledBody(mp4Bytes(CHUNK_SIZE, 7));
    const livePut = put(c, live.body);
    await until(async () => (await h.db.count('chunks')) === 4);
    // And a run written before runs were recorded (no record at all), referenced by nothing.
    await h.db.put('chunks', { fileId: 'legacy-orphan', index: 0, blob: new Blob(['x']) });
    await h.db.put('chunks', { fileId: 'legacy-orphan', index: 1, blob: new Blob(['y']) });

    const swept = await sweepOrphanRuns(h.db, { graceMs: 60 * 60 * 1000 });
    expect(swept.runs).toBe(2);
    const left = new Set((await h.db.getAllKeys('chunks')).map(([fileId]) => fileId));
    expect(left.has('legacy-orphan')).toBe(false);
    expect(left.has(deadRun!.chunkFileId)).toBe(false);
    expect(left.size).toBe(2); // A's file and C's live run

    // The live writer finishes: its file is whole.
    live.finish(mp4Bytes(size, 7).subarray(CHUNK_SIZE));
    expect((await livePut).status).toBe(200);
    // The dead writer comes back after all: its bytes are gone, so the PUT fails and stores nothing.
    dead.finish(mp4Bytes(size, 6).subarray(CHUNK_SIZE));
    const late = await deadPut;
    expect(late.status).toBe(409);
    const job = await getJob(jobId);
    expect(Object.keys(job.sourceUrls as Json).sort()).toEqual([a, c].sort());
    expect(Buffer.from(await download(job.sourceUrls[a] as string)).equals(Buffer.from(whole))).toBe(true);
    expect(Buffer.from(await download(job.sourceUrls[c] as string)).equals(Buffer.from(mp4Bytes(size, 7)))).toBe(true);
    // Nothing of B is left anywhere, and the open-run records are gone.
    expect(await h.db.count('chunks')).toBe(4);
    expect(await h.db.count('runs')).toBe(0);
  });

  test('keeps the runs of uploaded parts not yet completed', async () => {
    const created = await call('POST', '/jobs', { sources: [{ label: 'Big', fileSize: MB100 + 1 }] });
    const up = (created.json as Json).uploads[Object.keys((created.json as Json).uploads)[0]!] as Json;
    expect((await h.request(up.urls[0] as string, { method: 'PUT', body: mp4Bytes(1000) })).status).toBe(200);
    const swept = await sweepOrphanRuns(h.db, { graceMs: 0, now: Date.now() + 24 * 60 * 60 * 1000 });
    expect(swept.runs).toBe(0);
    expect(await h.db.count('chunks')).toBe(1);
  });
});

describe('signed downloads', () => {
  test('are served nosniff, sandboxed, with the type of the declared extension, never the picked one', async () => {
    const created = await call('POST', '/jobs', {
      sources: [{ label: 'A', ext: 'mov' }, { label: 'B' }],
    });
    const { jobId, uploads } = created.json as Json;
    const [a] = Object.keys(uploads) as [string];
    expect((await h.request(uploads[a].url as string, { method: 'PUT', body: mp4Bytes(100) })).status).toBe(200);
    const url = (await getJob(jobId)).sourceUrls[a] as string;
    const r = await h.service.handle(new Request(url));
    expect(r.headers.get('content-type')).toBe('video/quicktime');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('content-security-policy')).toContain('sandbox');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  test('a stored file of a type outside the media list is served as application/octet-stream', async () => {
    const created = await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }] });
    const { jobId, uploads } = created.json as Json;
    const [a] = Object.keys(uploads) as [string];
    expect((await h.request(uploads[a].url as string, { method: 'PUT', body: mp4Bytes(100) })).status).toBe(200);
    // A record from before this check (attachLocalSource took the picked File's own type).
    const source = (await h.db.get('jobs', jobId))!.sources.find((s) => s.id === a)!;
    const file = (await h.db.get('files', source.fileId!))!;
    await h.db.put('files', { ...file, type: 'text/html' });
    const r = await h.service.handle(new Request((await getJob(jobId)).sourceUrls[a] as string));
    expect(r.headers.get('content-type')).toBe('application/octet-stream');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('files checked when their upload completes', () => {
  // Accepted as a presigned PUT is (a client of the hosted service may store any bytes), then
  // said at once on the job, and the syncing stage fails at once with the same words
  // (warnings.node.test.ts): docs/decisions/010-uploads-judged-not-refused.md.
  const warningsOf = (job: Json): Json[] => (job.job as Json).warnings as Json[];

  test('an empty file is accepted at PUT, recorded on the source and named in a job warning', async () => {
    const created = await call('POST', '/jobs', { sources: [{ label: 'Cam B' }, { label: 'Cam C' }] });
    const { jobId, uploads } = created.json as Json;
    const [b] = Object.keys(uploads) as [string];
    const r = await h.request(uploads[b].url as string, { method: 'PUT', body: new Uint8Array(0) });
    expect(r.status).toBe(200);
    const record = (await h.db.get('jobs', jobId))!;
    expect(record.sources[0]!.mediaProblem).toEqual({
      code: 'FILE_EMPTY',
      message: `the file of source Cam B (${b}) is empty`,
    });
    expect(warningsOf(await getJob(jobId))).toEqual([
      expect.objectContaining({
        code: 'source_not_media',
        sourceId: b,
        message: `the file of source Cam B (${b}) is empty: upload the right file`,
      }),
    ]);
    // The right file sent again clears both.
    expect((await h.request(uploads[b].url as string, { method: 'PUT', body: mp4Bytes(50) })).status).toBe(200);
    expect((await h.db.get('jobs', jobId))!.sources[0]!.mediaProblem).toBeNull();
    expect(warningsOf(await getJob(jobId))).toEqual([]);
  });

  test('a web page is named by how it starts; startProcessing still starts the job as the hosted service does', async () => {
    const created = await call('POST', '/jobs', { sources: [{ label: 'Cam B' }, { label: 'Cam C' }] });
    const { jobId, uploads } = created.json as Json;
    const [b, c] = Object.keys(uploads) as [string, string];
    expect((await h.request(uploads[c].url as string, { method: 'PUT', body: mp4Bytes(50) })).status).toBe(200);
    const page = '<!DOCTYPE html><html><body><script>fetch("/api/jobs")</script></body></html>';
    expect((await h.request(uploads[b].url as string, { method: 'PUT', body: page })).status).toBe(200);
    expect(warningsOf(await getJob(jobId))).toEqual([
      expect.objectContaining({
        code: 'source_not_media',
        sourceId: b,
        message: `the file of source Cam B (${b}) is not a video or audio file (it starts with <!DOCTYPE html><html><bo …): upload the right file`,
      }),
    ]);
    // Served back only as bytes: never as a page of the app's origin.
    const url = ((await getJob(jobId)).sourceUrls as Json)[b] as string;
    const served = await h.service.handle(new Request(url));
    expect(served.headers.get('content-type')).toBe('video/mp4');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await call('POST', `/jobs/${jobId}/process`)).status).toBe(200);
  });

  test('a multipart upload whose file is not media is judged at complete, its bytes kept whole', async () => {
    const size = MB100 + 1;
    const created = await call('POST', '/jobs', { sources: [{ label: 'Big', fileSize: size }, { label: 'S' }] });
    const { jobId, uploads } = created.json as Json;
    const [big] = Object.keys(uploads) as [string];
    const up = uploads[big] as Json;
    const more = await call('POST', `/jobs/${jobId}/sources/${big}/parts`, {
      uploadId: up.uploadId,
      partNumbers: Array.from({ length: (up.partCount as number) - 10 }, (_, i) => i + 11),
    });
    const urls = [...(up.urls as string[]), ...Object.values((more.json as Json).urls as Record<string, string>)];
    const bytes = new Uint8Array(size).fill(0x41);
    for (let n = 1; n <= (up.partCount as number); n++) {
      const part = bytes.subarray((n - 1) * up.partSize, Math.min(size, n * up.partSize));
      expect((await h.request(urls[n - 1]!, { method: 'PUT', body: part })).status).toBe(200);
    }
    const r = await call('POST', '/uploads/complete', { key: up.key, uploadId: up.uploadId });
    expect(r.status).toBe(200);
    expect(warningsOf(await getJob(jobId))).toEqual([
      expect.objectContaining({
        code: 'source_not_media',
        message: `the file of source Big (${big}) is not a video or audio file (it starts with AAAAAAAAAAAAAAAAAAAAAAAA …): upload the right file`,
      }),
    ]);
    expect(await h.db.count('files')).toBe(1);
  });
});
