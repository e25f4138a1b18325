/**
 * Driving the engine test page (test/browser/pages/engine.ts) from Node: its
 * `window.engineTest` methods, the API through its service worker, opening it, and the
 * uploads of a new job. Shared by test/browser/engine.test.ts, test/browser/render-e2e.test.ts
 * and test/reliability/engine-faults.browser.test.ts.
 *
 * @module
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { PutUpload, UploadInfo } from '../../src/contract/types.ts';
import { patient } from './patience.ts';

/** Where the page is served from, relative to the site root. */
export const ENGINE_PAGE = '/test/browser/pages/engine.html';

/** Calls `window.engineTest[fn](...args)` in the page. */
export function callEngine<T>(page: Page, fn: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(
    ([name, a]) =>
      (
        (window as unknown as { engineTest: Record<string, (...x: unknown[]) => unknown> }).engineTest as Record<
          string,
          (...x: unknown[]) => unknown
        >
      )[name]!(...a),
    [fn, args] as const,
  ) as Promise<T>;
}

/** A JSON request to the API through the page's service worker, as account `apiKey`. */
export function engineApi<T>(
  page: Page,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  return callEngine(page, 'api', apiKey, method, path, body);
}

/**
 * Loads the engine page from `origin`, waits until it is ready and starts the library on
 * database `dbName`; returns the new account's API key when `createAccount`, else null.
 */
export async function openEnginePage(
  page: Page,
  origin: string,
  dbName: string,
  createAccount: boolean,
  engine = true,
): Promise<string | null> {
  await page.goto(`${origin}${ENGINE_PAGE}`);
  await page.waitForSelector('body[data-ready="1"]');
  return (await callEngine<{ apiKey: string | null }>(page, 'start', dbName, createAccount, undefined, engine)).apiKey;
}

/** PUTs each served file in `fileUrls` to the signed URL of the same position in `uploads`; each must answer 200. */
export async function putUploads(
  page: Page,
  uploads: Record<string, UploadInfo>,
  fileUrls: readonly string[],
): Promise<string[]> {
  const ids = Object.keys(uploads);
  for (const [i, id] of ids.entries()) {
    const put = await callEngine<{ status: number; text: string }>(
      page,
      'upload',
      (uploads[id] as PutUpload).url,
      fileUrls[i]!,
    );
    expect(put.status, put.text).toBe(200);
  }
  return ids;
}

/** Byte sizes of served files, fetched in the page (what a client declares as `fileSize`). */
export function servedSizes(page: Page, fileUrls: readonly string[]): Promise<number[]> {
  return Promise.all(fileUrls.map((u) => page.evaluate(async (x) => (await (await fetch(x)).blob()).size, u)));
}

/**
 * Opens the engine page in a new tab of `context` and starts the library there on `dbName`
 * without waiting for the engine lock (start() does not return while another tab holds it);
 * resolves once the tab has opened its database and registered.
 */
export async function openSecondTab(context: BrowserContext, origin: string, dbName: string): Promise<Page> {
  const second = await context.newPage();
  try {
    await second.goto(`${origin}${ENGINE_PAGE}`);
    await second.waitForSelector('body[data-ready="1"]');
    await second.evaluate((db) => {
      void (window as unknown as { engineTest: { start(d: string, c: boolean): Promise<unknown> } }).engineTest.start(
        db,
        false,
      );
    }, dbName);
    await second.waitForFunction(
      () => (window as unknown as { engineTest: { opened(): boolean } }).engineTest.opened(),
      undefined,
      { timeout: patient(20_000) },
    );
    return second;
  } catch (error) {
    await second.close();
    throw error;
  }
}

/** Whether the page's engine holds the engine lock (is the one running stages). */
export function engineActive(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { engineTest: { active(): boolean } }).engineTest.active());
}
