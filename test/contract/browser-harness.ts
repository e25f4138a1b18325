/**
 * The Chromium side of the contract harness, and the page driver the browser tests share.
 *
 * One Chromium and one static server (over the `vite build --mode test` output, dist-test/)
 * serve a whole test file; each harness gets a fresh page whose service worker is registered
 * with its own database name, so every harness starts from empty storage. Every request is
 * a real `fetch` made inside the page and answered by the real service worker.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page, Response as PwResponse } from 'playwright-core';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { DEFAULT_TURNS } from '../support/test-engine.ts';
import type { ContractHarness, EngineStage, HarnessRequestInit, HarnessResponse, StageOutput } from './harness.ts';
import type { ContractGroup } from './suite.ts';
import { patient } from '../support/patience.ts';

/** {@link StageOutput} as it crosses page.evaluate (bytes as a plain array). */
export type PageStageOutput = Omit<StageOutput, 'outputBytes'> & { outputBytes?: number[] };

/** Where `vite build --mode test` writes the harness page. */
export const TEST_BUILD_DIR = resolve(import.meta.dirname, '../../dist-test');
/** The harness page's path on the test server. */
export const HARNESS_PATH = '/test/browser/pages/harness.html';
/** The header the service worker adds to every response it produced. */
export const SERVED_BY_HEADER = 'x-multicam-served-by';

/** Builds dist-test/ once when it is missing (`MULTICAM_REBUILD=1` forces a rebuild). */
export function ensureTestBuild(): void {
  if (existsSync(resolve(TEST_BUILD_DIR, HARNESS_PATH.slice(1))) && process.env['MULTICAM_REBUILD'] !== '1') return;
  execFileSync('npx', ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], {
    stdio: 'inherit',
    cwd: resolve(import.meta.dirname, '../..'),
  });
}

/** A response carried back from the page. */
export interface PageResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** A chunked SHA-256 (see test/browser/pages/bytes.ts). */
export interface ChunkedDigest {
  bytes: number;
  sha256: string;
}

/**
 * What test/browser/pages/harness.ts puts on `window.harness`. The page is a DOM project and
 * this file a Node one, so the shape is declared on both sides; the browser tests fail loudly
 * if they drift.
 */
export interface HarnessPageApi {
  start(options: {
    basePath: string;
    dbName: string;
    apiOrigins?: string[];
    persistStorage?: boolean;
  }): Promise<{ baseUrl: string; controller: string }>;
  request(
    url: string,
    init?: { method?: string; headers?: Record<string, string>; body?: PageBody },
  ): Promise<PageResponse>;
  stageBody(id: string, base64: string): Promise<void>;
  createAccount(quotaMinutes: number | null | undefined): Promise<{ accountId: string; apiKey: string }>;
  createApiKey(accountId: string): Promise<string>;
  revokeApiKey(apiKey: string): Promise<void>;
  putGenerated(url: string, seed: number, start: number, end: number): Promise<PageResponse & { ms: number }>;
  digestUrl(url: string, range?: string): Promise<PageResponse & ChunkedDigest>;
  expectedDigest(seed: number, start: number, end: number): Promise<ChunkedDigest>;
  pendingStages(): Promise<Array<{ jobId: string; stage: EngineStage }>>;
  completeStage(jobId: string, stage: EngineStage, output?: PageStageOutput): Promise<void>;
  failStage(jobId: string, stage: EngineStage, options: { message: string; permanent?: boolean }): Promise<void>;
  events(jobId: string): Promise<Array<{ id: string; type: string; payload: Record<string, unknown> }>>;
  idbWriteGenerated(
    dbName: string,
    seed: number,
    start: number,
    end: number,
    chunkSize: number,
  ): Promise<{ ms: number }>;
  deleteDatabase(dbName: string): Promise<void>;
  userAgentMemory(): Promise<number | null>;
}

/** A request body as it crosses into the harness page (see test/browser/pages/harness.ts). */
export type PageBody = string | number[] | { staged: string } | { fill: number; length: number };

/** Calls `window.harness[name](...args)` in a harness page, whatever drives it. */
export type HarnessCall = <K extends keyof HarnessPageApi>(
  name: K,
  ...args: Parameters<HarnessPageApi[K]>
) => Promise<Awaited<ReturnType<HarnessPageApi[K]>>>;

/**
 * What the contract harness needs of a started harness page, whichever browser and driver hold
 * it (Chromium through Playwright here, Firefox through puppeteer-core over WebDriver BiDi in
 * test/firefox/contract-page.ts).
 */
export interface ContractPage {
  /** The page's origin: the service worker builds its links on it. */
  readonly origin: string;
  /** The base URL the worker answers for the page's own origin (`{origin}/api`). */
  readonly baseUrl: string;
  readonly call: HarnessCall;
  /**
   * Starts watching for the network-level response to the request tagged `tag` (its
   * `x-harness-request` header), before the request is made: true when the driver saw the
   * service worker answer it, false when it saw the network answer or nothing in time, and
   * `'cannot-tell'` where the driver has no way to know (puppeteer's BiDi responses always say
   * `fromServiceWorker() === false`).
   */
  watchResponse(tag: string): Promise<boolean | 'cannot-tell'>;
  close(): Promise<void>;
}

/** One Chromium plus one static server for a test file. */
export interface BrowserRun {
  readonly chromium: LaunchedChromium;
  readonly server: StaticServer;
  /**
   * A fresh page on the harness, its service worker registered for `basePath` and `dbName`, and
   * answering the foreign `apiOrigins` too (default none).
   */
  openHarness(options: {
    basePath?: string;
    dbName?: string;
    apiOrigins?: string[];
    /**
     * Take an idle harness page of the same base path and origins when there is one (it starts
     * the library again on the new database, as a reload would, in a tenth of the time), and
     * give the page back on close instead of closing it. The service worker is the origin's one
     * either way; a page left anywhere but the harness is closed, not reused.
     */
    reuse?: boolean;
  }): Promise<HarnessPageHandle>;
  close(): Promise<void>;
}

/** A harness page and a typed way to call into it. */
export interface HarnessPageHandle {
  readonly page: Page;
  readonly baseUrl: string;
  /** Calls `window.harness[name](...args)` in the page. */
  call<K extends keyof HarnessPageApi>(
    name: K,
    ...args: Parameters<HarnessPageApi[K]>
  ): Promise<Awaited<ReturnType<HarnessPageApi[K]>>>;
  /**
   * Runs `call` and waits for the one network-level response Playwright sees for the request
   * carrying the `x-harness-request` tag, so the test can ask it `fromServiceWorker()`.
   */
  callObserved<K extends keyof HarnessPageApi>(
    tag: string,
    name: K,
    ...args: Parameters<HarnessPageApi[K]>
  ): Promise<{ result: Awaited<ReturnType<HarnessPageApi[K]>>; response: PwResponse }>;
  close(): Promise<void>;
}

let dbCounter = 0;

/** Launches Chromium and serves dist-test/ (building it first when missing). */
export async function startBrowserRun(): Promise<BrowserRun> {
  ensureTestBuild();
  return serveBrowserRun(TEST_BUILD_DIR, 'multicam-test');
}

/** The foreign API origin the browser runs may name (unreachable: only the worker answers it). */
export const FOREIGN_API_ORIGIN = 'https://api.example.com';

/**
 * The contract groups the browser tier runs a second time with a foreign base URL: those whose
 * requests go to URLs and links the worker hands out (upload and download URLs on the page's
 * origin while the client calls another host), and the key and path checks. The others run with
 * it in the deep tier (test/deep/contract-foreign.test.ts).
 */
export const FOREIGN_BASE_URL_GROUPS: readonly ContractGroup[] = [
  'authentication',
  'createJob',
  'uploads and downloads',
  'startRender, render results and approveJob',
];

/**
 * Launches Chromium and serves `buildDir`, a `vite build --mode test` output holding the
 * harness page; each harness page gets a new database named `{dbPrefix}-{pid}-{n}-{time}`
 * unless told otherwise.
 */
export async function serveBrowserRun(buildDir: string, dbPrefix: string): Promise<BrowserRun> {
  // The foreign base URL the contract and sw tests name (apiOrigins): a page's CSP must let it
  // fetch there, or the request is refused before the worker sees it.
  const server = await serveStatic(buildDir, { connectSrc: [FOREIGN_API_ORIGIN] });
  let chromium: LaunchedChromium;
  try {
    chromium = await launchChromium();
  } catch (error) {
    await server.close();
    throw error;
  }
  /** Harness pages given back by reusing handles, by base path and origins. */
  const idle = new Map<string, Page[]>();
  return {
    chromium,
    server,
    async openHarness(options) {
      const poolKey = JSON.stringify([options.basePath ?? '/api', options.apiOrigins ?? []]);
      const pooled = options.reuse === true ? idle.get(poolKey)?.pop() : undefined;
      const page = pooled ?? (await chromium.context.newPage());
      if (pooled === undefined) {
        page.on('pageerror', (error) => console.error('[harness page]', error));
        await page.goto(`${server.origin}${HARNESS_PATH}`);
        await page.waitForSelector('body[data-ready="1"]');
      }
      const dbName = options.dbName ?? `${dbPrefix}-${process.pid}-${++dbCounter}-${Date.now()}`;
      const call = (async (name: string, ...args: unknown[]) =>
        page.evaluate(
          ([n, a]) => {
            const api = (window as unknown as { harness: Record<string, (...x: unknown[]) => unknown> }).harness;
            const fn = api[n];
            if (!fn) throw new Error(`window.harness.${String(n)} is missing`);
            return fn(...a);
          },
          [name, args] as const,
        )) as HarnessPageHandle['call'];
      const started = await call('start', {
        basePath: options.basePath ?? '/api',
        dbName,
        ...(options.apiOrigins === undefined ? {} : { apiOrigins: options.apiOrigins }),
      });
      return {
        page,
        baseUrl: started.baseUrl,
        call,
        async callObserved(tag, name, ...args) {
          const seen = page.waitForResponse((r) => r.request().headers()['x-harness-request'] === tag, {
            timeout: patient(60_000),
          });
          const result = await call(name, ...args);
          return { result, response: await seen };
        },
        async close() {
          if (options.reuse === true && !page.isClosed() && page.url() === `${server.origin}${HARNESS_PATH}`) {
            idle.set(poolKey, [...(idle.get(poolKey) ?? []), page]);
          } else await page.close();
        },
      };
    },
    async close() {
      await chromium.close();
      await server.close();
    },
  };
}

let requestCounter = 0;
/** Bytes above this size are staged in base64 slices rather than sent as a number array. */
const STAGE_ABOVE = 64 * 1024;
const STAGE_SLICE = 8 * 1024 * 1024;

async function toPageBytes(page: ContractPage, id: string, bytes: Uint8Array): Promise<number[] | { staged: string }> {
  if (bytes.length <= STAGE_ABOVE) return Array.from(bytes);
  for (let pos = 0; pos < bytes.length; pos += STAGE_SLICE) {
    await page.call(
      'stageBody',
      id,
      Buffer.from(bytes.buffer, bytes.byteOffset + pos, Math.min(STAGE_SLICE, bytes.length - pos)).toString('base64'),
    );
  }
  return { staged: id };
}

/**
 * The contract harness over a real service worker in Chromium: a harness page started afresh on
 * a new database per harness (an idle page of the file's run is reused), every request a `fetch` inside it. `servedByServiceWorker` is true only
 * when the response carries the worker's header AND Playwright saw it come from the service worker.
 */
export async function makeBrowserHarness(
  run: BrowserRun,
  options: { baseUrl?: string } = {},
): Promise<ContractHarness> {
  // A foreign base URL is answered only when the registration names its origin.
  const foreign = options.baseUrl === undefined ? null : new URL(options.baseUrl);
  const handle = await run.openHarness({
    reuse: true,
    basePath: foreign === null ? '/api' : foreign.pathname,
    ...(foreign === null || foreign.origin === run.server.origin ? {} : { apiOrigins: [foreign.origin] }),
  });
  const page: ContractPage = {
    origin: run.server.origin,
    baseUrl: handle.baseUrl,
    call: (name, ...args) => handle.call(name, ...args),
    watchResponse: (tag) =>
      handle.page
        .waitForResponse((r) => r.request().headers()['x-harness-request'] === tag, { timeout: patient(30_000) })
        .then((response) => response.fromServiceWorker())
        .catch(() => false),
    close: () => handle.close(),
  };
  return makePageHarness(page, options);
}

/**
 * The contract harness over a started harness page (see {@link ContractPage}), every request a
 * `fetch` inside it. `servedByServiceWorker` needs the worker's header on the response AND the
 * driver's word that the service worker answered; where the driver cannot tell, the header alone
 * (the static server never sets it, and a foreign base URL has nothing else to answer it).
 */
export function makePageHarness(page: ContractPage, options: { baseUrl?: string } = {}): ContractHarness {
  const baseUrl = (options.baseUrl ?? page.baseUrl).replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  return {
    baseUrl,
    // The worker builds links on the page's origin, whatever base URL the client calls.
    linkOrigin: page.origin,
    canAdvanceClock: false,
    async request(url: string, init: HarnessRequestInit = {}): Promise<HarnessResponse> {
      const tag = `req-${++requestCounter}`;
      const headers: Record<string, string> = { ...init.headers, 'x-harness-request': tag };
      let body: PageBody | undefined;
      if (typeof init.body === 'string') body = init.body;
      else if (init.body instanceof Uint8Array) body = await toPageBytes(page, tag, init.body);
      else if (init.body !== undefined) body = { fill: init.body.fill, length: init.body.length };
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
          headers['content-type'] = 'application/json';
      }
      const absolute = /^https?:/.test(url) ? url : `${origin}${url.startsWith('/') ? '' : '/'}${url}`;
      const seen = page.watchResponse(tag);
      const res = await page.call('request', absolute, {
        headers,
        ...(init.method === undefined ? {} : { method: init.method }),
        ...(body === undefined ? {} : { body }),
      });
      const observed = await seen;
      let json: unknown;
      try {
        json = JSON.parse(res.text);
      } catch {
        json = null;
      }
      return {
        status: res.status,
        headers: res.headers,
        json,
        text: res.text,
        servedByServiceWorker:
          res.headers[SERVED_BY_HEADER] === 'service-worker' && (observed === true || observed === 'cannot-tell'),
      };
    },
    async createAccount(opts = {}) {
      return page.call('createAccount', opts.quotaMinutes);
    },
    createApiKey: (accountId) => page.call('createApiKey', accountId),
    revokeApiKey: (apiKey) => page.call('revokeApiKey', apiKey),
    pendingStages: () => page.call('pendingStages'),
    async completeStage(jobId, stage, output) {
      // The same defaults as the Node harness's TestEngine (test/support/test-engine.ts).
      const { outputBytes, ...rest } = output ?? {};
      const pageOutput: PageStageOutput = {
        ...rest,
        ...(stage === 'diarizing' && rest.turns === undefined ? { turns: DEFAULT_TURNS } : {}),
        ...(stage === 'rendering'
          ? { outputBytes: Array.from(outputBytes ?? new Uint8Array(4096).map((_, i) => i % 251)) }
          : {}),
      };
      await page.call('completeStage', jobId, stage, pageOutput);
    },
    failStage: (jobId, stage, opts) => page.call('failStage', jobId, stage, opts),
    events: (jobId) => page.call('events', jobId),
    async advanceClock(ms) {
      // The page runs on the real clock: a second or two can honestly pass by waiting.
      if (ms > 2000)
        throw new Error(`the browser harness cannot move the clock by ${ms} ms (canAdvanceClock is false)`);
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
    dispose: () => page.close(),
  };
}
