/**
 * Firefox gives a service worker's fetch event no request body stream (`request.body` is
 * undefined; issue 53): before, the first upload answered 500 "e.body is undefined" and the
 * demo waited forever. Every route that reads a body reads it with `blob()` there.
 */
import { afterEach, expect, test } from 'vitest';
import { createNodeHarness, toHarnessResponse, toRequest, type NodeHarness } from '../../contract/node-harness.ts';
import type { HarnessRequestInit } from '../../contract/harness.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A TEST DOUBLE of Firefox's service worker request: the same request, with no body stream. */
function firefoxRequest(url: string, init: HarnessRequestInit): Request {
  const request = toRequest(url, init);
  Object.defineProperty(request, 'body', { value: undefined });
  return request;
}

async function call(h: NodeHarness, method: string, path: string, init: HarnessRequestInit = {}, apiKey?: string) {
  const headers = { ...(init.headers ?? {}), ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
  const url = path.startsWith('http') ? path : `${h.baseUrl}${path}`;
  return toHarnessResponse(await h.service.handle(firefoxRequest(url, { ...init, method, headers })), true);
}

test('without a body stream, JSON bodies, single PUTs and multipart parts are read whole and stored', async () => {
  const h = await createNodeHarness();
  cleanups.push(() => h.dispose());
  const { apiKey } = await h.createAccount();
  const big = 100 * 1024 * 1024 + 1; // over the single-PUT limit: multipart
  const created = await call(
    h,
    'POST',
    '/jobs',
    {
      json: {
        sources: [
          { label: 'Cam A', fileSize: 2048 },
          { label: 'Cam B', fileSize: big },
        ],
      },
    },
    apiKey,
  );
  expect(created.status, created.text).toBe(200);
  const body = created.json as {
    jobId: string;
    uploads: Record<string, { method: string; url?: string; urls?: string[]; partSize?: number }>;
  };
  const [a, b] = Object.keys(body.uploads) as [string, string];
  // A single PUT.
  const put = await call(h, 'PUT', body.uploads[a]!.url!, { body: new Uint8Array(2048).fill(7) });
  expect(put.status, put.text).toBe(200);
  // A multipart part is stored: it answers with its ETag.
  const multipart = body.uploads[b]!;
  expect(multipart.method).toBe('multipart');
  const part = await call(h, 'PUT', multipart.urls![0]!, { body: new Uint8Array(multipart.partSize!).fill(1) });
  expect(part.status, part.text).toBe(200);
  expect(part.headers['etag']).toBeTruthy();
  // An empty JSON body is still a clear 400, never a 500.
  const empty = await call(
    h,
    'POST',
    `/jobs/${body.jobId}/tracks`,
    { headers: { 'content-type': 'application/json' } },
    apiKey,
  );
  expect(empty.status).toBeGreaterThanOrEqual(400);
  expect(empty.status).toBeLessThan(500);
  const job = await call(h, 'GET', `/jobs/${body.jobId}`, {}, apiKey);
  const sources = (job.json as { job: { sources: Array<{ id: string; uploaded?: boolean }> } }).job.sources;
  expect(sources.find((s) => s.id === a)).toBeDefined();
});
