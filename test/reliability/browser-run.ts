/**
 * A {@link BrowserRun} (the contract harness's browser side) over a test build of the
 * current sources in `.cache/reliability-test-build`, built once (`MULTICAM_REBUILD=1`
 * rebuilds), so the reliability tests never run against a stale shared dist-test/ and never
 * rewrite it under another test.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchChromium } from '../../tools/chromium.ts';
import { serveStatic } from '../../tools/serve.ts';
import { HARNESS_PATH, type BrowserRun, type HarnessPageHandle } from '../contract/browser-harness.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Where this suite's test build lives. */
export const RELIABILITY_BUILD_DIR = join(ROOT, '.cache/reliability-test-build');

/** Builds the test pages and the service worker from the current sources when not built yet. */
export function ensureReliabilityBuild(): void {
  const marker = join(RELIABILITY_BUILD_DIR, '.built');
  if (existsSync(marker) && process.env['MULTICAM_REBUILD'] !== '1') return;
  execFileSync('npx', ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], {
    stdio: 'inherit',
    cwd: ROOT,
    env: { ...process.env, MULTICAM_OUT_DIR: RELIABILITY_BUILD_DIR },
  });
  writeFileSync(marker, new Date().toISOString());
}

let dbCounter = 0;

/** Chromium plus a static server over {@link RELIABILITY_BUILD_DIR}; harness pages as in the contract suite. */
export async function startReliabilityRun(): Promise<BrowserRun> {
  ensureReliabilityBuild();
  const server = await serveStatic(RELIABILITY_BUILD_DIR);
  const chromium = await launchChromium().catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  return {
    chromium,
    server,
    async openHarness(options) {
      const page = await chromium.context.newPage();
      page.on('pageerror', (error) => console.error('[harness page]', error));
      await page.goto(`${server.origin}${HARNESS_PATH}`);
      await page.waitForSelector('body[data-ready="1"]');
      const dbName = options.dbName ?? `multicam-reliability-${process.pid}-${++dbCounter}-${Date.now()}`;
      const call = (async (name: string, ...args: unknown[]) =>
        page.evaluate(
          ([n, a]) => {
            const api = (window as unknown as { harness: Record<string, (...x: unknown[]) => unknown> }).harness;
            const fn = api[n as string];
            if (!fn) throw new Error(`window.harness.${String(n)} is missing`);
            return fn(...(a as unknown[]));
          },
          [name, args] as const,
        )) as HarnessPageHandle['call'];
      const started = await call('start', { basePath: options.basePath ?? '/api', dbName });
      return {
        page,
        baseUrl: started.baseUrl,
        call,
        async callObserved(tag, name, ...args) {
          const seen = page.waitForResponse((r) => r.request().headers()['x-harness-request'] === tag, { timeout: 60_000 });
          const result = await call(name, ...args);
          return { result, response: await seen };
        },
        close: () => page.close(),
      };
    },
    async close() {
      await chromium.close();
      await server.close();
    },
  };
}
