/**
 * Fuzzes every operation of the Node handler (fake-indexeddb, test engine) with thousands
 * of seeded bad requests: each must be a 4xx with the Error shape, and afterwards every
 * record of every store, and every job as getJob shows it, must be exactly as before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_JSON_BODY_BYTES } from '../../src/routes/http.ts';
import { createNodeHarness, toHarnessResponse, type NodeHarness } from '../contract/node-harness.ts';
import { generateFuzzCases, hugeJsonStream, type FuzzCase, type FuzzWorld } from './fuzz-cases.ts';
import { dumpDatabase, expectFuzzRejected, newTally, summaryLine } from './support.ts';
import { buildWorld, jobViews } from './world.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261122);
const COUNT = Number(process.env['FUZZ_COUNT'] ?? 3000);
const tally = newTally();

describe('fuzzing the Node handler', () => {
  let h: NodeHarness;
  let world: FuzzWorld;
  const origin = 'https://api.example.com';

  beforeAll(async () => {
    h = await createNodeHarness({ baseUrl: `${origin}/api` });
    world = await buildWorld(h);
  });
  afterAll(async () => {
    await h.dispose();
    console.log(summaryLine(tally, 'node fuzz'));
  });

  async function send(c: FuzzCase): Promise<{ status: number; json: unknown; pulled: number | null }> {
    let request: Request;
    let pulled: (() => number) | null = null;
    if (c.hugeBytes !== undefined) {
      const huge = hugeJsonStream(c.hugeBytes);
      pulled = huge.pulled;
      request = new Request(origin + c.path, {
        method: c.method,
        headers: { ...c.headers, 'content-type': 'application/json' },
        body: huge.stream,
        duplex: 'half',
      } as RequestInit);
    } else {
      request = new Request(origin + c.path, {
        method: c.method,
        headers: c.headers,
        ...(c.body === undefined ? {} : { body: c.body }),
      });
    }
    const r = await toHarnessResponse(await h.service.handle(request), true);
    return { status: r.status, json: r.json, pulled: pulled === null ? null : pulled() };
  }

  test(`${COUNT} seeded bad requests (seed ${SEED}): all 4xx with the Error shape, nothing changed`, async () => {
    const before = await dumpDatabase(h.db);
    const viewsBefore = await jobViews(h, world);
    const cases = generateFuzzCases(world, SEED, COUNT, { hugeEvery: 500 });
    const statuses = new Map<number, number>();
    for (const [i, c] of cases.entries()) {
      const r = await send(c);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expectFuzzRejected(tally, r.status, r.json, `${c.what} → ${r.status} ${JSON.stringify(r.json)}`);
      if (r.pulled !== null) {
        // Refused after reading at most the limit (plus what the stream had buffered), not 50 MB.
        expect(r.status, c.what).toBe(
          c.method === 'POST' && /\/jobs$|\/uploads\/|\/process$|\/tracks$|\/recut$|\/retry$|\/parts$/.test(c.path)
            ? 413
            : r.status,
        );
        expect(r.pulled, c.what).toBeLessThan(MAX_JSON_BODY_BYTES + 1024 * 1024);
      }
      if (i % 1000 === 999) expect(await dumpDatabase(h.db)).toEqual(before);
    }
    expect(await dumpDatabase(h.db)).toEqual(before);
    expect(await jobViews(h, world)).toEqual(viewsBefore);
    console.log(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  });

  test('a 50 MB JSON string (declared and undeclared length) and 10k-level nesting on every body operation', async () => {
    const before = await dumpDatabase(h.db);
    const big = `{"sources":"${'a'.repeat(50 * 1024 * 1024)}"}`;
    const auth = { authorization: `Bearer ${world.key}`, 'content-type': 'application/json' };
    const r1 = await h.service.handle(new Request(`${origin}/api/jobs`, { method: 'POST', headers: auth, body: big }));
    expectFuzzRejected(tally, r1.status, await r1.json(), 'createJob 50 MB string');
    expect(r1.status).toBe(413);
    // A Content-Length over the limit is refused before a byte is read.
    const declared = hugeJsonStream(50 * 1024 * 1024);
    const r2 = await h.service.handle(
      new Request(`${origin}/api/jobs`, {
        method: 'POST',
        headers: { ...auth, 'content-length': String(50 * 1024 * 1024) },
        body: declared.stream,
        duplex: 'half',
      } as RequestInit),
    );
    expectFuzzRejected(tally, r2.status, await r2.json(), 'createJob declared 50 MB');
    expect(r2.status).toBe(413);
    for (const levels of [10_000, 100_000]) {
      for (const nested of [
        '['.repeat(levels) + ']'.repeat(levels),
        '{"a":'.repeat(levels) + '1' + '}'.repeat(levels),
      ]) {
        for (const [method, path] of [
          ['POST', '/jobs'],
          ['POST', `/jobs/${world.jobs['ready']!.jobId}/recut`],
          ['PATCH', `/jobs/${world.jobs['ready']!.jobId}/cuts`],
          ['POST', `/jobs/${world.jobs['mapping']!.jobId}/tracks`],
          ['POST', `/jobs/${world.jobs['created']!.jobId}/process`],
          ['POST', `/jobs/${world.jobs['failed']!.jobId}/retry`],
          ['POST', '/uploads/complete'],
        ] as const) {
          const r = await h.service.handle(
            new Request(`${origin}/api${path}`, {
              method,
              headers: auth,
              body: `{"sources":${nested},"tracks":${nested},"cuts":${nested}}`,
            }),
          );
          const body = (await r.json()) as { error: string };
          expectFuzzRejected(tally, r.status, body, `${path} nested ${levels}`);
          expect(r.status).toBe(400);
        }
      }
    }
    expect(await dumpDatabase(h.db)).toEqual(before);
  });
});
