/**
 * Builds and serves the camera-map test page (test/browser/pages/camera.html with the vision
 * worker) on its own, so the browser test and the benchmark do not depend on the shared
 * `vite build --mode test` input list. Output: .cache/camera-page/ (gitignored).
 */
import { cpSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import type { Page } from 'playwright-core';
import type { CameraMotionArrays, VisionSamplingOptions } from '../../src/vision/protocol.ts';
import type { CameraMap, Turn } from '../../src/contract/types.ts';
import { buildSite, ROOT, siteLinks } from '../../test/support/build-site.ts';

/** Sampling options of the page: the worker's, with `withFaces` for the page's own face model. */
export type PageSampling = VisionSamplingOptions & { withFaces?: boolean | 'wasm' | 'webgpu-fallback' };

/** What test/browser/pages/camera.ts puts on `window.camera`. */
export interface CameraPageApi {
  motion(url: string, options?: PageSampling & { jobKey?: string }): Promise<CameraMotionArrays>;
  map(
    cameras: Array<{ sourceId: string; url: string; offsetMs: number; driftPpm: number }>,
    turns: Turn[],
    options?: PageSampling & { minSpeechMs?: number },
  ): Promise<CameraMap>;
  cancel(jobKey: string): Promise<void>;
  dispose(): void;
}

/** Runs the vision worker on a served URL from Node. */
export function pageMotion(page: Page, url: string, options: PageSampling = {}): Promise<CameraMotionArrays> {
  return page.evaluate(([u, o]) => (window as unknown as { camera: CameraPageApi }).camera.motion(u, o), [
    url,
    options,
  ] as const);
}

export const CAMERA_PAGE_DIR = join(ROOT, '.cache/camera-page');
const PAGE_PATH = 'test/browser/pages/camera.html';

/** Builds the page once per process (a few seconds: mediabunny and comlink). */
export async function buildCameraPage(): Promise<void> {
  await buildSite({
    pages: { camera: PAGE_PATH },
    outDir: CAMERA_PAGE_DIR,
    links: { wasm: join(ROOT, 'wasm'), models: join(ROOT, 'models') },
  });
}

export interface CameraPageSession {
  page: Page;
  origin: string;
  /** Copies a media file next to the page and returns its URL path. */
  addMedia(file: string, as?: string): string;
  close(): Promise<void>;
}

/** Serves the built page and opens it in Chromium (through src/cli/chromium.ts). */
export async function openCameraPage(options: { extraArgs?: readonly string[] } = {}): Promise<CameraPageSession> {
  let server: StaticServer | undefined;
  let chromium: LaunchedChromium | undefined;
  try {
    server = await serveStatic(CAMERA_PAGE_DIR, { index: PAGE_PATH, allow: siteLinks(CAMERA_PAGE_DIR) });
    chromium = await launchChromium(options.extraArgs ? { extraArgs: options.extraArgs } : {});
    const page = await chromium.context.newPage();
    await page.goto(`${server.origin}/${PAGE_PATH}`);
    await page.waitForSelector('body[data-ready="1"]');
    const media = join(CAMERA_PAGE_DIR, 'media');
    mkdirSync(media, { recursive: true });
    const s = server;
    const c = chromium;
    return {
      page,
      origin: s.origin,
      addMedia(file, as = basename(file)) {
        cpSync(file, join(media, as));
        return `/media/${as}`;
      },
      async close() {
        await c.close();
        await s.close();
      },
    };
  } catch (err) {
    await chromium?.close();
    await server?.close();
    throw err;
  }
}
