/**
 * Hostile and unlucky storage cases in Debian's Chromium, through the real service worker and
 * the real IndexedDB (the Node versions, over fake-indexeddb, are storage.node.test.ts):
 *
 * 1. A client retries completeMultipartUpload while the first one still runs: two completes of
 *    one 100 MB + 1 B upload sent at once from the page. Before issue 48's fix each complete
 *    read the parts, wrote the file and then dropped the parts with their chunks in separate
 *    transactions, so the later one deleted the chunks the earlier one's file had just claimed
 *    (or answered an error): the Node version failed with "expected +0 to be 13" chunks, and
 *    here the chunk count and the download's digest fail the same way.
 * 2. A tab closed mid-upload leaves chunks no file references; the engine's start-up sweep
 *    (store/sweep.ts, run by a new tab's engine) collects them and keeps a finished upload's.
 *    Before the fix nothing ever deleted such a run (and no `runs` record marked it open, so the
 *    first check that fails is `openRuns` containing it; without that one, the poll below ends on
 *    its deadline with the orphan still there and the `toEqual([])` on the orphans fails).
 *    Probed in this Chromium: the worker does get a streamed request body (`duplex: 'half'`), and
 *    when the tab sending it closes, the worker's handler sees the stream fail and deletes the
 *    chunks it wrote; so the orphan here is written by the tab itself, which dies mid-write.
 *
 * The page (test/browser/pages/hostile-storage.ts) and the service worker are built here into
 * .cache/hostile-storage-site, so no shared dist build is needed.
 */
import { join, resolve } from 'node:path';
import type { Page, Response as PwResponse } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CreateJobResponse, GetJobResponse, MultipartUpload, PutUpload } from '../../../src/contract/types.ts';
import { LIMITS } from '../../../src/contract/types.ts';
import { launchChromium, type LaunchedChromium } from '../../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../../src/cli/serve.ts';
import { CHUNK_SIZE } from '../../../src/store/files.ts';
import { buildSite, siteLinks } from '../../support/build-site.ts';
import { patient } from '../../support/patience.ts';
import type { StorageSnapshot, StorageTestPage } from '../../browser/pages/hostile-storage.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const SITE = join(ROOT, '.cache/hostile-storage-site');
const PAGE = '/test/browser/pages/hostile-storage.html';
/** The smallest declared size that is uploaded in parts. */
const BIG = LIMITS.multipartThreshold + 1;

let chromium: LaunchedChromium;
let server: StaticServer;
let dbCounter = 0;

beforeAll(async () => {
  await buildSite({ pages: { storage: PAGE }, outDir: SITE, sw: true, reuse: true });
  server = await serveStatic(SITE, { allow: siteLinks(SITE) });
  chromium = await launchChromium();
}, patient(120_000));
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

/** Calls `window.storageTest[name](...args)` in `page`. */
function call<K extends keyof StorageTestPage>(
  page: Page,
  name: K,
  ...args: Parameters<StorageTestPage[K]>
): Promise<Awaited<ReturnType<StorageTestPage[K]>>> {
  return page.evaluate(
    ([n, a]) => {
      const api = (window as unknown as { storageTest: Record<string, (...x: unknown[]) => unknown> }).storageTest;
      return api[n]!(...a);
    },
    [name, args] as const,
  ) as Promise<Awaited<ReturnType<StorageTestPage[K]>>>;
}

/** A new page on the test page, the library started on `dbName`. */
async function openPage(
  dbName: string,
  options: Parameters<StorageTestPage['start']>[1],
): Promise<{ page: Page; apiKey: string | null }> {
  const page = await chromium.context.newPage();
  page.on('pageerror', (error) => console.error('[storage page]', error));
  await page.goto(`${server.origin}${PAGE}`);
  await page.waitForSelector('body[data-ready="1"]');
  const { apiKey } = await call(page, 'start', dbName, options);
  return { page, apiKey };
}

const newDbName = (what: string): string => `multicam-hostile-storage-${what}-${process.pid}-${++dbCounter}`;

/** A JSON API call through the page's service worker; the body parsed. */
async function api<T>(page: Page, apiKey: string, method: string, path: string, body?: unknown) {
  const r = await call(page, 'api', apiKey, method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(200);
  expect(r.servedBy).toBe('service-worker');
  return JSON.parse(r.text) as T;
}

/** Chunk runs in the store that no file or part record references. */
const orphansOf = (s: StorageSnapshot): string[] =>
  Object.keys(s.chunkRuns).filter((run) => !s.fileRuns.includes(run) && !s.partRuns.includes(run));

describe('completeMultipartUpload retried while the first runs, in the real service worker', () => {
  test(
    'two completes at once both answer 200 from the worker; the file downloads whole and its chunks stay',
    async () => {
      const dbName = newDbName('complete');
      const { page, apiKey } = await openPage(dbName, { createAccount: true });
      try {
        const key = apiKey!;
        const seed = 0x48_0001;
        const created = await api<CreateJobResponse>(page, key, 'POST', '/jobs', {
          sources: [{ label: 'Big', fileSize: BIG }, { label: 'Small' }],
        });
        const [bigId, upload] = Object.entries(created.uploads)[0] as [string, MultipartUpload];
        expect(upload.method).toBe('multipart');
        const urls = new Map(upload.urls.map((url, i) => [i + 1, url]));
        const missing = Array.from({ length: upload.partCount }, (_, i) => i + 1).filter((n) => !urls.has(n));
        for (let i = 0; i < missing.length; i += LIMITS.maxPartNumbersPerRequest) {
          const more = await api<{ urls: Record<string, string> }>(
            page,
            key,
            'POST',
            `/jobs/${created.jobId}/sources/${bigId}/parts`,
            { uploadId: upload.uploadId, partNumbers: missing.slice(i, i + LIMITS.maxPartNumbersPerRequest) },
          );
          for (const [n, url] of Object.entries(more.urls)) urls.set(Number(n), url);
        }
        for (let n = 1; n <= upload.partCount; n++) {
          const start = (n - 1) * upload.partSize;
          const put = await call(
            page,
            'putGenerated',
            urls.get(n)!,
            seed,
            start,
            Math.min(BIG, start + upload.partSize),
          );
          expect(put.status, `part ${n}: ${put.text}`).toBe(200);
        }
        const before = await call(page, 'snapshot', dbName);
        const chunksBefore = Object.values(before.chunkRuns).reduce((a, b) => a + b, 0);
        expect(chunksBefore).toBe(Math.ceil(BIG / CHUNK_SIZE));

        // Both completes leave the page in one tick; Playwright tells which ones the worker answered.
        const tags = ['complete-a', 'complete-b'] as [string, string];
        const seen = tags.map((tag) =>
          page.waitForResponse((r) => r.request().headers()['x-test-request'] === tag, { timeout: patient(60_000) }),
        );
        const body = { key: upload.key, uploadId: upload.uploadId };
        const results = await call(page, 'twice', key, 'POST', '/uploads/complete', body, tags);
        const observed: PwResponse[] = await Promise.all(seen);
        expect(
          results.map((r) => r.status),
          results.map((r) => r.text).join(' | '),
        ).toEqual([200, 200]);
        expect(results.map((r) => JSON.parse(r.text))).toEqual([{ ok: true }, { ok: true }]);
        expect(results.map((r) => r.servedBy)).toEqual(['service-worker', 'service-worker']);
        expect(observed.map((r) => r.fromServiceWorker())).toEqual([true, true]);

        // Every chunk is still there, now claimed by exactly one file; no part is left.
        const after = await call(page, 'snapshot', dbName);
        expect(Object.values(after.chunkRuns).reduce((a, b) => a + b, 0)).toBe(chunksBefore);
        expect(after.files).toBe(1);
        expect(after.parts).toBe(0);
        expect(orphansOf(after)).toEqual([]);

        // And the file downloads byte for byte as uploaded.
        const job = await api<GetJobResponse>(page, key, 'GET', `/jobs/${created.jobId}`);
        const got = await call(page, 'digestUrl', job.sourceUrls[bigId]!);
        expect(got.status).toBe(200);
        expect(got.servedBy).toBe('service-worker');
        expect({ bytes: got.bytes, sha256: got.sha256 }).toEqual(await call(page, 'expectedDigest', seed, 0, BIG));
      } finally {
        await page.close();
      }
    },
    patient(60_000),
  );
});

describe('a tab closed mid-upload, then the sweeper', () => {
  test(
    "a new tab's engine collects the chunks the closed tab left; a finished upload's chunks stay",
    async () => {
      const dbName = newDbName('sweep');
      const size = CHUNK_SIZE + 10;
      const first = await openPage(dbName, { createAccount: true });
      const key = first.apiKey!;
      let jobId: string;
      let kept: string;
      let keptRuns: string[];
      let orphan: string;
      try {
        const created = await api<CreateJobResponse>(first.page, key, 'POST', '/jobs', {
          sources: [
            { label: 'Done', fileSize: size },
            { label: 'Cut off', fileSize: 3 * CHUNK_SIZE },
          ],
        });
        jobId = created.jobId;
        const [[doneId, done], [, cutOff]] = Object.entries(created.uploads) as [
          [string, PutUpload],
          [string, PutUpload],
        ];
        kept = doneId;
        // One source uploaded whole through the service worker.
        const put = await call(first.page, 'putGenerated', done.url, 0x48_0002, 0, size);
        expect(put.status, put.text).toBe(200);
        expect(put.servedBy).toBe('service-worker');
        keptRuns = (await call(first.page, 'snapshot', dbName)).fileRuns;
        expect(keptRuns).toHaveLength(1);

        // The other is being written by this tab itself when the tab is closed. (Through the
        // worker, a closed tab only ends the request's body stream: the worker's handler sees
        // the error and deletes what it wrote. The run is left behind when its writer dies
        // with the tab, as here, or when the browser kills the worker mid-write.)
        await call(first.page, 'startDyingPut', cutOff.url, 0x48_0003, 2, CHUNK_SIZE);
        // Wait until both full chunks are stored (a generous deadline, not a timing assertion).
        const written = (s: StorageSnapshot): boolean => orphansOf(s).some((run) => s.chunkRuns[run] === 2);
        const deadline = Date.now() + patient(15_000);
        let snapshot = await call(first.page, 'snapshot', dbName);
        while (!written(snapshot) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          snapshot = await call(first.page, 'snapshot', dbName);
        }
        expect(orphansOf(snapshot)).toHaveLength(1);
        orphan = orphansOf(snapshot)[0]!;
        expect(snapshot.chunkRuns[orphan]).toBe(2);
        expect(snapshot.openRuns).toContain(orphan);
      } finally {
        await first.page.close();
      }

      // A new tab starts the engine; its start-up sweep (no grace period here) finds the run.
      const second = await openPage(dbName, { engine: true, orphanGraceMs: 0 });
      try {
        const left = await call(second.page, 'snapshot', dbName);
        expect(Object.keys(left.chunkRuns)).toContain(keptRuns[0]);
        // Poll (no wall-clock assertion): give the sweep a generous while before judging.
        const deadline = Date.now() + patient(15_000);
        let now = left;
        while (orphansOf(now).length > 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          now = await call(second.page, 'snapshot', dbName);
        }
        expect(orphansOf(now)).toEqual([]);
        expect(now.chunkRuns[orphan]).toBeUndefined();
        expect(now.openRuns).not.toContain(orphan);
        expect((await call(second.page, 'swept'))?.runs).toBe(1);
        // The finished upload is untouched: its chunks, and its bytes as uploaded.
        expect(now.fileRuns).toEqual(keptRuns);
        expect(now.chunkRuns[keptRuns[0]!]).toBe(2);
        const job = await api<GetJobResponse>(second.page, key, 'GET', `/jobs/${jobId}`);
        expect(Object.keys(job.sourceUrls)).toEqual([kept]);
        const got = await call(second.page, 'digestUrl', job.sourceUrls[kept]!);
        expect({ bytes: got.bytes, sha256: got.sha256 }).toEqual(
          await call(second.page, 'expectedDigest', 0x48_0002, 0, size),
        );
      } finally {
        await second.page.close();
      }
    },
    patient(60_000),
  );
});
