/**
 * The browser side of the fuzzing and the CSP check: a few hundred seeded bad requests are
 * `fetch`ed in a real page and answered by the real service worker (each must be a 4xx with
 * the Error shape, served by the worker, and no job changes); every page of the build is
 * served with a Content-Security-Policy, and an inline script is blocked.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeBrowserHarness, type BrowserRun } from '../contract/browser-harness.ts';
import { RELIABILITY_BUILD_DIR as TEST_BUILD_DIR, startReliabilityRun } from './browser-run.ts';
import type { ContractHarness } from '../contract/harness.ts';
import { generateFuzzCases } from './fuzz-cases.ts';
import { expectFuzzRejected, newTally, summaryLine } from './support.ts';
import { buildWorld, jobViews } from './world.ts';
import { patient } from '../support/patience.ts';
import { isContractPath } from '../../src/contract/base-path.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261122) + 1;
const COUNT = Number(process.env['FUZZ_BROWSER_COUNT'] ?? 300);
const tally = newTally();
let run: BrowserRun;

beforeAll(async () => {
  run = await startReliabilityRun();
}, patient(180_000));
afterAll(async () => {
  await run?.close();
  console.log(summaryLine(tally, 'browser fuzz + CSP'));
});

describe('through the service worker', () => {
  let h: ContractHarness;
  beforeAll(async () => {
    h = await makeBrowserHarness(run);
  }, patient(60_000));
  afterAll(async () => h?.dispose());

  test(
    `${COUNT} seeded bad requests: 4xx with the Error shape from the service worker, every job unchanged`,
    async () => {
      const world = await buildWorld(h);
      const before = await jobViews(h, world, { freshUrls: true });
      const list = (await h.request(`${h.baseUrl}/jobs`, { headers: { authorization: `Bearer ${world.key}` } })).text;
      let refusedByFetch = 0;
      for (const c of generateFuzzCases(world, SEED, COUNT)) {
        let r;
        try {
          r = await h.request(new URL(h.baseUrl).origin + c.path, {
            method: c.method,
            headers: c.headers,
            ...(c.body === undefined ? {} : { body: c.body }),
          });
        } catch (error) {
          // fetch itself refuses some requests (a header value it will not send): nothing reached the worker.
          expect(String(error), c.what).toMatch(/TypeError|Failed to execute|Invalid/);
          refusedByFetch++;
          continue;
        }
        const url = new URL(new URL(h.baseUrl).origin + c.path);
        if (!isContractPath(new URL(h.baseUrl).pathname, url)) {
          // `/api/jobs/../export` is `/api/export` once the URL is parsed: not the contract's, so
          // not the worker's either (a host app's own path); the static server answers it.
          expect(r.servedByServiceWorker, c.what).toBe(false);
          expect(r.status, c.what).toBe(404);
          continue;
        }
        expectFuzzRejected(tally, r.status, r.json, `${c.what} → ${r.status} ${r.text.slice(0, 200)}`);
        expect(r.servedByServiceWorker, c.what).toBe(true);
      }
      expect(await jobViews(h, world, { freshUrls: true })).toEqual(before);
      expect(Object.values(before).join('')).toContain('?exp=…&sig=…');
      expect((await h.request(`${h.baseUrl}/jobs`, { headers: { authorization: `Bearer ${world.key}` } })).text).toBe(
        list,
      );
      console.log(
        `[reliability] browser fuzz: ${tally.fuzzed} answered by the worker, ${refusedByFetch} refused by fetch before sending`,
      );
      expect(tally.fuzzed).toBeGreaterThan(COUNT * 0.9);
    },
    patient(170_000),
  );
});

describe('huge and deep bodies through the service worker', () => {
  test(
    'a 50 MB JSON string is 413 and 10k-level nesting 400, answered by the worker; the page stays usable',
    async () => {
      const handle = await run.openHarness({});
      try {
        const { apiKey } = await handle.call('createAccount', null);
        const results = await handle.page.evaluate(
          async ([base, key]) => {
            const send = async (
              body: string | Blob,
            ): Promise<{ status: number; text: string; servedBy: string | null }> => {
              const r = await fetch(`${base}/jobs`, {
                method: 'POST',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
                body,
              });
              return { status: r.status, text: await r.text(), servedBy: r.headers.get('x-multicam-served-by') };
            };
            // A Blob, as a page sends a file: the same 50 MB, which DevTools does not copy into its
            // request events as it does a string body (that copy took a minute under load).
            const huge = await send(new Blob(['{"sources":"', 'a'.repeat(50 * 1024 * 1024), '"}']));
            const deepArrays = await send(`{"sources":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
            const deepObjects = await send(`{"sources":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`);
            const list = await fetch(`${base}/jobs`, { headers: { authorization: `Bearer ${key}` } });
            return { huge, deepArrays, deepObjects, listStatus: list.status, listText: await list.text() };
          },
          [handle.baseUrl, apiKey] as const,
        );
        for (const [what, r, status] of [
          ['50 MB', results.huge, 413],
          ['10k nested arrays', results.deepArrays, 400],
          ['10k nested objects', results.deepObjects, 400],
        ] as const) {
          expectFuzzRejected(tally, r.status, JSON.parse(r.text), `${what} → ${r.status} ${r.text.slice(0, 200)}`);
          expect(r.status, what).toBe(status);
          expect(r.servedBy, what).toBe('service-worker');
        }
        expect(results.listStatus).toBe(200);
        expect(JSON.parse(results.listText)).toEqual({ jobs: [] });
      } finally {
        await handle.close();
      }
    },
    patient(60_000),
  );
});

describe('Content-Security-Policy', () => {
  const pages = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : pages(path);
      return name.endsWith('.html') ? ['/' + relative(TEST_BUILD_DIR, path)] : [];
    });

  test('every page of the build (and the service worker script) carries a CSP without unsafe-inline scripts', async () => {
    const paths = ['/', ...pages(TEST_BUILD_DIR), '/sw.js'];
    expect(paths.length).toBeGreaterThan(3);
    for (const path of paths) {
      const response = await fetch(run.server.origin + path);
      expect(response.status, path).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'self'");
      const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
      expect(scriptSrc, path).not.toContain("'unsafe-inline'");
      expect(scriptSrc, path).not.toContain("'unsafe-eval'");
      expect(csp, path).toContain("object-src 'none'");
    }
  });

  test('an inline script on the demo page is blocked and reported as a violation', async () => {
    const page = await run.chromium.context.newPage();
    try {
      await page.goto(`${run.server.origin}/demo/index.html`);
      const outcome = await page.evaluate(async () => {
        const w = window as unknown as { injected?: boolean };
        const violation = new Promise<string>((resolve) => {
          document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), { once: true });
          setTimeout(() => resolve('none'), 2000);
        });
        const script = document.createElement('script');
        script.textContent = 'window.injected = true;';
        document.body.append(script);
        const onclick = document.createElement('div');
        onclick.setAttribute('onclick', 'window.injected = true');
        document.body.append(onclick);
        onclick.click();
        return { injected: w.injected === true, violation: await violation };
      });
      expect(outcome.injected).toBe(false);
      expect(outcome.violation).toMatch(/^script-src/);
    } finally {
      await page.close();
    }
  });
});
