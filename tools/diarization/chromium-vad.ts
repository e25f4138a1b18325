/**
 * Runs Silero VAD inside Chromium (launched through src/cli/chromium.ts) with the engine's own
 * code: test/browser/pages/vad.html (pickExecutionProvider → loadOrt → SileroVad), built with
 * Vite into .cache/vad-site and served by src/cli/serve.ts with cross-origin isolation, so wasm
 * can use 2 threads. Used by bench/diarize/run.ts and test/browser/vad.test.ts.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildSite, ROOT, siteLinks } from '../../test/support/build-site.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import type { VadPageOptions, VadPageRun } from '../../test/browser/pages/vad.worker.ts';
import type { PageDiarizeRun } from '../../test/browser/pages/vad.ts';

export type { VadPageOptions } from '../../test/browser/pages/vad.worker.ts';

/** Probabilities per 512-sample frame, timings, where it ran, and what the page downloaded. */
export interface BrowserVadRun extends VadPageRun {
  /** Paths the page and its worker requested (which onnxruntime-web build and binary were downloaded). */
  requests: string[];
}

const PAGE_PATH = 'test/browser/pages/vad.html';
const SITE = join(ROOT, '.cache/vad-site');

/**
 * Chromium flags that expose WebGPU on a machine without a GPU: SwiftShader's Vulkan, a
 * fallback adapter (`isFallbackAdapter` true), which the engine refuses and tests accept.
 */
export const WEBGPU_FLAGS: readonly string[] = [
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-angle=swiftshader',
];

/** A Chromium with the VAD page's site served; every `run` gets a fresh page. */
export interface VadBrowser {
  run(samples: Float32Array, options: VadPageOptions): Promise<BrowserVadRun>;
  /**
   * The engine's analysis worker diarizing 16 kHz channels (VAD, then per-mic or single-mix),
   * with `vadLanes` channels at once; `abortAfterMs` aborts the call that long after it starts.
   */
  diarize(
    channels: Float32Array[],
    options?: {
      vadLanes?: number;
      vadGate?: boolean;
      vadBleedGate?: boolean;
      abortAfterMs?: number;
      keepInMemory?: boolean;
    },
  ): Promise<PageDiarizeRun & { requests: string[] }>;
  /** Speaker detection's scratch folders and files in the origin's private file system. */
  scratchEntries(): Promise<string[]>;
  close(): Promise<void>;
}

let built: Promise<string> | undefined;

/** Builds the page (once per process, a few seconds) and opens Chromium on it. */
export async function openVadBrowser(options: { webgpu?: boolean } = {}): Promise<VadBrowser> {
  built ??= buildSite({
    pages: { vad: PAGE_PATH },
    outDir: SITE,
    links: { wasm: join(ROOT, 'wasm'), models: join(ROOT, 'models') },
  });
  await built;
  mkdirSync(join(SITE, 'input'), { recursive: true });
  let server: StaticServer | undefined;
  let chromium: LaunchedChromium | undefined;
  try {
    server = await serveStatic(SITE, { index: PAGE_PATH, allow: siteLinks(SITE) });
    chromium = await launchChromium(options.webgpu ? { extraArgs: WEBGPU_FLAGS } : {});
  } catch (error) {
    await server?.close();
    throw error;
  }
  const origin = server.origin;
  const browser = chromium;
  let inputs = 0;
  /** Samples go as a served file: 10 minutes are 38 MB, too much for page.evaluate's JSON. */
  const serve = (samples: Float32Array): string => {
    const name = `input/${process.pid}-${inputs++}.f32`;
    writeFileSync(join(SITE, name), new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
    return `/${name}`;
  };
  /** Runs `work` on a fresh page of the site, with the paths it and its workers requested. */
  const onPage = async <T>(work: (page: Page) => Promise<T>): Promise<T & { requests: string[] }> => {
    const page: Page = await browser.context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    try {
      await page.goto(`${origin}/${PAGE_PATH}`);
      await page.waitForSelector('body[data-ready="1"]');
      return { ...(await work(page)), requests };
    } finally {
      await page.close();
    }
  };
  return {
    async run(samples, runOptions) {
      const url = serve(samples);
      return onPage((page) =>
        page.evaluate(
          ([u, o]) =>
            (window as unknown as { vad: { run(url: string, options: VadPageOptions): Promise<VadPageRun> } }).vad.run(
              u,
              o,
            ),
          [url, runOptions] as const,
        ),
      );
    },
    async diarize(channels, diarizeOptions = {}) {
      const urls = channels.map(serve);
      return onPage((page) =>
        page.evaluate(
          ([u, o]) =>
            (
              window as unknown as { vad: { diarize(urls: string[], options: object): Promise<PageDiarizeRun> } }
            ).vad.diarize(u, o),
          [urls, diarizeOptions] as const,
        ),
      );
    },
    async scratchEntries() {
      // onPage adds `requests` to what the page returns: an object, not the bare list.
      const found = await onPage(async (page) => ({
        entries: await page.evaluate(() =>
          (window as unknown as { vad: { scratchEntries(): Promise<string[]> } }).vad.scratchEntries(),
        ),
      }));
      return found.entries;
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
