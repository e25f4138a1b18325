/**
 * Uploads through the service worker, read back byte-identical.
 *
 * A 150 MB source (declared fileSize over 100 MB, so multipart: parts PUT to the signed part
 * URLs, then completeMultipartUpload) and a small one by a single PUT. The bytes are
 * generated inside the page from a seed, so the expected content of any range is known
 * without shipping data from Node; downloads are compared as chunked SHA-256 digests.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CreateJobResponse, GetJobResponse, MultipartUpload, PutUpload } from '../../src/contract/types.ts';
import {
  startBrowserRun,
  SERVED_BY_HEADER,
  type BrowserRun,
  type HarnessPageHandle,
} from '../contract/browser-harness.ts';

const BIG = 150 * 1024 * 1024;
/** Deliberately not a multiple of any chunk or block size. */
const SMALL = 3 * 1024 * 1024 + 12_345;
const SEED_BIG = 0x5eed_0001;
const SEED_SMALL = 0x5eed_0002;

let run: BrowserRun;
let harness: HarnessPageHandle;
let auth: Record<string, string>;
let sourceUrls: Record<string, string>;
let bigId: string;
let smallId: string;

async function api<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T; headers: Record<string, string> }> {
  const res = await harness.call('request', `${harness.baseUrl}${path}`, {
    method,
    headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: JSON.parse(res.text) as T, headers: res.headers };
}

beforeAll(async () => {
  run = await startBrowserRun();
  harness = await run.openHarness({ basePath: '/api' });
  const { apiKey } = await harness.call('createAccount', undefined);
  auth = { authorization: `Bearer ${apiKey}` };
});
afterAll(async () => {
  await run?.close();
});

test('a 150 MB multipart upload and a single PUT are stored through the service worker', async () => {
  const created = await api<CreateJobResponse>('POST', '/jobs', {
    sources: [
      { label: 'Cam A', fileSize: BIG },
      { label: 'Cam B', fileSize: SMALL },
    ],
  });
  expect(created.status).toBe(200);
  expect(created.headers[SERVED_BY_HEADER]).toBe('service-worker');
  const entries = Object.entries(created.body.uploads);
  expect(entries).toHaveLength(2);
  const [bigEntry, smallEntry] = entries as [[string, MultipartUpload], [string, PutUpload]];
  [bigId, smallId] = [bigEntry[0], smallEntry[0]];
  const multipart = bigEntry[1];
  expect(multipart.method).toBe('multipart');
  expect(smallEntry[1].method).toBe('put');
  expect(multipart.partCount).toBe(Math.ceil(BIG / multipart.partSize));

  // URLs for the parts createJob did not sign yet, at most 16 per request.
  const partUrls = new Map<number, string>(multipart.urls.map((url, i) => [i + 1, url]));
  const missing = Array.from({ length: multipart.partCount }, (_, i) => i + 1).filter((n) => !partUrls.has(n));
  for (let i = 0; i < missing.length; i += 16) {
    const res = await api<{ urls: Record<string, string> }>(
      'POST',
      `/jobs/${created.body.jobId}/sources/${bigId}/parts`,
      {
        uploadId: multipart.uploadId,
        partNumbers: missing.slice(i, i + 16),
      },
    );
    expect(res.status).toBe(200);
    for (const [n, url] of Object.entries(res.body.urls)) partUrls.set(Number(n), url);
  }
  for (let n = 1; n <= multipart.partCount; n++) {
    const url = partUrls.get(n);
    expect(url, `part ${n} URL`).toBeDefined();
    const start = (n - 1) * multipart.partSize;
    const put = await harness.call(
      'putGenerated',
      url as string,
      SEED_BIG,
      start,
      Math.min(BIG, start + multipart.partSize),
    );
    expect(put.status, `part ${n}: ${put.text}`).toBe(200);
    expect(put.headers[SERVED_BY_HEADER]).toBe('service-worker');
  }
  const completed = await api<{ ok: boolean }>('POST', '/uploads/complete', {
    key: multipart.key,
    uploadId: multipart.uploadId,
  });
  expect(completed.status).toBe(200);
  expect(completed.body).toEqual({ ok: true });

  const put = await harness.call('putGenerated', smallEntry[1].url, SEED_SMALL, 0, SMALL);
  expect(put.status, put.text).toBe(200);

  const job = await api<GetJobResponse>('GET', `/jobs/${created.body.jobId}`);
  expect(job.status).toBe(200);
  sourceUrls = job.body.sourceUrls;
  expect(Object.keys(sourceUrls).sort()).toEqual([bigId, smallId].sort());
});

test('both files read back byte-identical, whole and by range', async () => {
  const bigUrl = sourceUrls[bigId] as string;
  const smallUrl = sourceUrls[smallId] as string;

  const whole = await harness.call('digestUrl', bigUrl);
  expect(whole.status).toBe(200);
  expect(whole.headers[SERVED_BY_HEADER]).toBe('service-worker');
  expect(whole).toMatchObject(await harness.call('expectedDigest', SEED_BIG, 0, BIG));

  // A range across a part boundary, and the last bytes.
  const [a, b] = [BIG / 2 - 1_000_003, BIG / 2 + 2_000_001];
  const mid = await harness.call('digestUrl', bigUrl, `bytes=${a}-${b}`);
  expect(mid.status).toBe(206);
  expect(mid.headers['content-range']).toBe(`bytes ${a}-${b}/${BIG}`);
  expect(mid).toMatchObject(await harness.call('expectedDigest', SEED_BIG, a, b + 1));
  const tail = await harness.call('digestUrl', bigUrl, 'bytes=-4097');
  expect(tail.status).toBe(206);
  expect(tail).toMatchObject(await harness.call('expectedDigest', SEED_BIG, BIG - 4097, BIG));

  const small = await harness.call('digestUrl', smallUrl);
  expect(small.status).toBe(200);
  expect(small).toMatchObject(await harness.call('expectedDigest', SEED_SMALL, 0, SMALL));
  const smallRange = await harness.call('digestUrl', smallUrl, 'bytes=1000-1999');
  expect(smallRange.status).toBe(206);
  expect(smallRange).toMatchObject(await harness.call('expectedDigest', SEED_SMALL, 1000, 2000));
});

test('a <video>-style open-ended range answers 206 from the start', async () => {
  const res = await harness.call('digestUrl', sourceUrls[smallId] as string, 'bytes=0-');
  expect(res.status).toBe(206);
  expect(res.headers['content-range']).toBe(`bytes 0-${SMALL - 1}/${SMALL}`);
  expect(res.headers['accept-ranges']).toBe('bytes');
  expect(res).toMatchObject(await harness.call('expectedDigest', SEED_SMALL, 0, SMALL));
});

test('the digests can tell a wrong range apart (the check is not vacuous)', async () => {
  const res = await harness.call('digestUrl', sourceUrls[smallId] as string, 'bytes=1000-1999');
  expect(res.sha256).not.toBe((await harness.call('expectedDigest', SEED_SMALL, 1001, 2001)).sha256);
  expect(res.sha256).not.toBe((await harness.call('expectedDigest', SEED_BIG, 1000, 2000)).sha256);
});
