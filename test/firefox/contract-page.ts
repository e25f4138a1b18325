/**
 * The contract harness page in Firefox: Debian's firefox-esr through src/cli/firefox.ts
 * (puppeteer-core over WebDriver BiDi), serving the same `vite build --mode test` output
 * (dist-test/) as the Chromium runs. Each harness starts the library with a database of its
 * own, as in test/contract/browser-harness.ts.
 *
 * One tab serves the whole file: each harness starts the library again in the loaded page (as
 * the Chromium runs reuse an idle page) with a new database, without asking to persist storage
 * (Firefox would prompt, and start-up waits up to 1 s for the answer). A new tab per case cost
 * about 1 s more each under BiDi, a reload about 0.6 s; the database is new for every case, the
 * service worker the origin's one either way.
 *
 * BiDi cannot say whether the service worker answered a request (puppeteer's
 * `fromServiceWorker()` is always false there), so the Firefox runs call a foreign base URL,
 * https://api.example.com/api: every non-loopback request goes to a dead proxy, so only the
 * worker can answer, and its `x-multicam-served-by` header says it did.
 *
 * @module
 */
import type { Page } from 'puppeteer-core';
import { launchFirefox, type LaunchedFirefox } from '../../src/cli/firefox.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import {
  ensureTestBuild,
  FOREIGN_API_ORIGIN,
  HARNESS_PATH,
  TEST_BUILD_DIR,
  type ContractPage,
  type HarnessCall,
} from '../contract/browser-harness.ts';
import { patient } from '../support/patience.ts';

/** One Firefox and one static server over dist-test/ for a test file. */
export interface FirefoxHarnessRun {
  readonly firefox: LaunchedFirefox;
  readonly server: StaticServer;
  /** The harness page loaded afresh, its worker registered for `basePath` (and the foreign origin) with a new database. */
  openPage(options: { basePath: string; apiOrigins?: string[] }): Promise<ContractPage>;
  close(): Promise<void>;
}

let dbCounter = 0;

/** Launches Firefox and serves dist-test/ (building it first when missing). */
export async function startFirefoxHarnessRun(): Promise<FirefoxHarnessRun> {
  ensureTestBuild();
  const server = await serveStatic(TEST_BUILD_DIR, { connectSrc: [FOREIGN_API_ORIGIN] });
  let firefox: LaunchedFirefox;
  try {
    firefox = await launchFirefox({ protocolTimeout: patient(180_000) });
  } catch (error) {
    await server.close();
    throw error;
  }
  let tab: Promise<Page> | undefined;
  /** The base path and origins the tab's page was loaded for; the next case with the same ones starts in it again. */
  let loadedFor: string | null = null;
  return {
    firefox,
    server,
    async openPage(options) {
      const page = await (tab ??= firefox.browser.newPage().then((p) => {
        p.on('pageerror', (error) => console.error('[firefox harness page]', error));
        return p;
      }));
      const key = JSON.stringify([options.basePath, options.apiOrigins ?? []]);
      if (loadedFor !== key || page.url() !== `${server.origin}${HARNESS_PATH}`) {
        await page.goto(`${server.origin}${HARNESS_PATH}`);
        await page.waitForSelector('body[data-ready="1"]', { timeout: patient(30_000) });
        loadedFor = key;
      }
      const call = (async (name: string, ...args: unknown[]) =>
        page.evaluate(
          (n: string, a: unknown[]) => {
            const api = (window as unknown as { harness: Record<string, (...x: unknown[]) => unknown> }).harness;
            const fn = api[n];
            if (!fn) throw new Error(`window.harness.${n} is missing`);
            return fn(...a);
          },
          name,
          args,
        )) as HarnessCall;
      const started = await call('start', {
        basePath: options.basePath,
        dbName: `multicam-firefox-${process.pid}-${++dbCounter}-${Date.now()}`,
        persistStorage: false,
        ...(options.apiOrigins === undefined ? {} : { apiOrigins: options.apiOrigins }),
      });
      return {
        origin: server.origin,
        baseUrl: started.baseUrl,
        call,
        watchResponse: () => Promise.resolve('cannot-tell' as const),
        // The tab stays for the next case, which starts the library again on a new database.
        close: () => Promise.resolve(),
      };
    },
    async close() {
      await firefox.close();
      server.server.closeAllConnections();
      await server.close();
    },
  };
}
