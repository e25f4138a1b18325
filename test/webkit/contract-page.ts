/**
 * The contract harness page in WebKit: Debian's WebKitGTK MiniBrowser through src/cli/webkit.ts
 * (classic WebDriver over `fetch`, on a virtual X display), serving the same
 * `vite build --mode test` output (dist-test/) as the Chromium and Firefox runs. As in
 * test/firefox/contract-page.ts, one window serves the whole file: each harness starts the
 * library again in the loaded page with a new database, without asking to persist storage.
 *
 * Classic WebDriver cannot see the network at all, so {@link ContractPage.watchResponse} says
 * `'cannot-tell'`, and the WebKit run calls the foreign base URL https://api.example.com/api:
 * every non-loopback request goes to a dead proxy, so only the worker can answer, and its
 * `x-multicam-served-by` header says it did.
 *
 * @module
 */
import { launchWebKit, missingWebKitParts, type LaunchedWebKit } from '../../src/cli/webkit.ts';
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

/** The error of a CI run on a machine without WebKitGTK's driver, MiniBrowser or xvfb-run. */
export class WebKitMissingError extends Error {
  override name = 'WebKitMissingError';
}

/**
 * Whether WebKit can run here. When it cannot: false on a developer's machine (the file is
 * skipped), and a {@link WebKitMissingError} naming what is missing where `env.CI` is `'true'`
 * (CI installs it, and a skipped tier must not pass for a green one), as
 * test/support/shared-data.ts does for the shared data.
 */
export function requireWebKit(env: NodeJS.ProcessEnv = process.env): boolean {
  const missing = missingWebKitParts(env);
  if (missing.length === 0) return true;
  if (env['CI'] === 'true')
    throw new WebKitMissingError(
      `WebKit missing: ${missing.join('; ')}. CI (CI=true) runs the webkit tier, so CI must install webkit2gtk-driver and xvfb`,
    );
  return false;
}

/** What the skipped file says when WebKit is missing on a developer's machine. */
export function webKitSkipReason(env: NodeJS.ProcessEnv = process.env): string {
  return `WebKit missing: ${missingWebKitParts(env).join('; ')}`;
}

/** One MiniBrowser and one static server over dist-test/ for a test file. */
export interface WebKitHarnessRun {
  readonly webkit: LaunchedWebKit;
  readonly server: StaticServer;
  /** The harness page (loaded once per base path), its worker registered for `basePath` (and the foreign origin) with a new database. */
  openPage(options: { basePath: string; apiOrigins?: string[] }): Promise<ContractPage>;
  close(): Promise<void>;
}

let dbCounter = 0;

/** Calls `window.harness[name](...args)` and hands back its value or its error, over WebDriver's async execute. */
const CALL_SCRIPT = `
const done = arguments[arguments.length - 1];
const [name, args] = arguments;
Promise.resolve()
  .then(() => {
    const fn = window.harness && window.harness[name];
    if (!fn) throw new Error('window.harness.' + name + ' is missing');
    return fn(...args);
  })
  .then(
    (value) => done({ ok: value === undefined ? null : value }),
    (error) => done({ error: String((error && error.stack) || error) }),
  );
`;

/** Launches MiniBrowser and serves dist-test/ (building it first when missing). */
export async function startWebKitHarnessRun(): Promise<WebKitHarnessRun> {
  ensureTestBuild();
  const server = await serveStatic(TEST_BUILD_DIR, { connectSrc: [FOREIGN_API_ORIGIN] });
  let webkit: LaunchedWebKit;
  try {
    webkit = await launchWebKit({ scriptTimeout: patient(180_000), pageLoadTimeout: patient(60_000) });
  } catch (error) {
    await server.close();
    throw error;
  }
  const { session } = webkit;
  /** The base path and origins the page was loaded for; the next case with the same ones starts in it again. */
  let loadedFor: string | null = null;
  const call = (async (name: string, ...args: unknown[]) => {
    const answer = (await session.executeAsync(CALL_SCRIPT, [name, args])) as { ok?: unknown; error?: string } | null;
    if (answer === null || answer.error !== undefined)
      throw new Error(`window.harness.${name} failed in WebKit: ${answer?.error ?? 'no answer'}`);
    return answer.ok;
  }) as HarnessCall;
  return {
    webkit,
    server,
    async openPage(options) {
      const key = JSON.stringify([options.basePath, options.apiOrigins ?? []]);
      if (loadedFor !== key || (await session.url()) !== `${server.origin}${HARNESS_PATH}`) {
        await session.navigate(`${server.origin}${HARNESS_PATH}`);
        const deadline = Date.now() + patient(30_000);
        while ((await session.execute('return document.body && document.body.dataset.ready')) !== '1') {
          if (Date.now() > deadline)
            throw new Error(`the harness page did not get ready in WebKit: ${webkit.driverLog()}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        loadedFor = key;
      }
      const started = await call('start', {
        basePath: options.basePath,
        dbName: `multicam-webkit-${process.pid}-${++dbCounter}-${Date.now()}`,
        persistStorage: false,
        ...(options.apiOrigins === undefined ? {} : { apiOrigins: options.apiOrigins }),
      });
      return {
        origin: server.origin,
        baseUrl: started.baseUrl,
        call,
        watchResponse: () => Promise.resolve('cannot-tell' as const),
        // The page stays for the next case, which starts the library again on a new database.
        close: () => Promise.resolve(),
      };
    },
    async close() {
      await webkit.close();
      server.server.closeAllConnections();
      await server.close();
    },
  };
}
