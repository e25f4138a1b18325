/**
 * Shared by test/browser/render.test.ts and bench/render/run.ts: builds the render test page
 * (test/browser/pages/render.html, its worker and ffmpeg.wasm's worker) into its own folder with
 * Vite's API, links the pinned `wasm/` assets and a fixture directory beside it (/fixture/).
 */
import { join, resolve } from 'node:path';
import type { Cut, TimeRange } from '../../src/contract/types.ts';
import type { RenderOutputOptions, RenderResult, RenderSource } from '../../src/render/protocol.ts';
import { buildSite, requireFfmpegCore, ROOT } from '../../test/support/build-site.ts';

// The page's API (test/browser/pages/render.ts), mirrored here: the page belongs to the DOM
// project and cannot be imported by Node code, not even for types.

/** A source as the page takes it: a served URL instead of a Blob. */
export interface PageSource extends Omit<RenderSource, 'blob'> {
  url: string;
}

/** What `window.renderTest.render` takes. */
export interface PageRenderOptions {
  cuts: Cut[];
  removedRanges: TimeRange[];
  sources: PageSource[];
  audioSourceIds?: string[];
  output?: RenderOutputOptions;
  abortAfterMs?: number;
  returnFile?: boolean;
  heapEveryMs?: number;
  sequentialSink?: boolean;
}

/** What it returns. */
export interface PageRenderSummary {
  result?: RenderResult;
  error?: { name: string; message: string };
  progress: number[];
  sinkAborted: string | null;
  sinkClosed: boolean;
  writes: number;
  outOfOrderWrites: number;
  fileBase64?: string;
  video?: { duration: number; width: number; height: number } | { error: string };
  heap: number[];
  wallMs: number;
}

declare global {
  interface Window {
    renderTest: { render(o: PageRenderOptions): Promise<PageRenderSummary> };
  }
}

export { ROOT };
export const RENDER_PAGE = '/test/browser/pages/render.html';

/** Builds the page into `outDir` (default .cache/render-site) and links `fixtureDir` as /fixture. */
export async function buildRenderSite(fixtureDir: string, outDir = join(ROOT, '.cache/render-site')): Promise<string> {
  requireFfmpegCore();
  return buildSite({ pages: { render: RENDER_PAGE }, outDir, links: { wasm: join(ROOT, 'wasm'), fixture: resolve(fixtureDir) } });
}
