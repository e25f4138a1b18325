/**
 * The engine test page: a page that embeds the library with `startMulticam({ engine: true })`,
 * so the real engine runner processes jobs in its workers. test/browser/engine.test.ts drives
 * it with `page.evaluate(() => window.engineTest.…)`; uploads are real PUTs of files served
 * by the test server to the signed upload URLs.
 *
 * @module
 */
import { startMulticam, type MulticamInstance, type StartMulticamOptions } from '../../../src/dom/start.ts';
import type { StageRunRecord } from '../../../src/pipeline/runner.ts';

let instance: MulticamInstance | undefined;

function running(): MulticamInstance {
  if (!instance) throw new Error('engineTest.start() was not called');
  return instance;
}

const engineTest = {
  /**
   * Starts the library on database `dbName`, with the engine unless `engine` is false (a page
   * that only talks to the service worker, as a page closed mid-stage leaves its queued work),
   * and engine `assets` when given; a new account's API key when asked.
   */
  async start(
    dbName: string,
    createAccount: boolean,
    assets?: StartMulticamOptions['assets'],
    engine = true,
  ): Promise<{ apiKey: string | null; baseUrl: string }> {
    instance = await startMulticam({
      basePath: '/api',
      dbName,
      engine,
      // The page opts in to the optional ffmpeg core at /wasm/ as the demo does; `assets` may override it.
      assets: { ffmpegWasmBase: '/wasm/', ...assets },
    });
    await instance.engine?.started;
    const apiKey = createAccount ? (await instance.accounts.create()).apiKey : null;
    return { apiKey, baseUrl: instance.baseUrl };
  },

  /** A JSON request to the API through the service worker. */
  async api(apiKey: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${running().baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: response.status, json };
  },

  /** Fetches `fileUrl` from the test server and PUTs it to the signed `uploadUrl`. */
  async upload(uploadUrl: string, fileUrl: string): Promise<{ status: number; text: string }> {
    const file = await (await fetch(fileUrl)).blob();
    const response = await fetch(uploadUrl, { method: 'PUT', body: file });
    return { status: response.status, text: await response.text() };
  },

  /** Stage runs of this page's engine. */
  history(): StageRunRecord[] {
    return [...(running().engine?.history ?? [])];
  },

  /** The stage running now. */
  running(): { jobId: string; stage: string } | null {
    return running().engine?.running ?? null;
  },

  /** Whether startMulticam has returned in this page (the engine may still wait for its lock). */
  opened(): boolean {
    return instance !== undefined;
  },

  /** Whether this page holds the engine lock. */
  active(): boolean {
    return running().engine?.active ?? false;
  },
};

declare global {
  interface Window {
    engineTest: typeof engineTest;
  }
}
window.engineTest = engineTest;
document.body.dataset['ready'] = '1';
