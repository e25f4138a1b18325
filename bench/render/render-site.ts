/**
 * Shared by test/browser/render.test.ts and bench/render/run.ts: builds the render test page
 * (test/browser/pages/render.html, its worker and ffmpeg.wasm's worker) into its own folder with
 * Vite's API, links the pinned `wasm/` assets and a fixture directory beside it (/fixture/).
 */
import { join, resolve } from 'node:path';
import type { PageRenderOptions, PageRenderSummary } from '../../test/browser/pages/render.ts';
import { buildSite, requireFfmpegCore, ROOT } from '../../test/support/build-site.ts';

// The page's API, from the page itself (a type-only import: nothing of the DOM project runs here).
export type { PageRenderOptions, PageRenderSummary, PageSource } from '../../test/browser/pages/render.ts';

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
  return buildSite({
    pages: { render: RENDER_PAGE },
    outDir,
    links: { wasm: join(ROOT, 'wasm'), fixture: resolve(fixtureDir) },
  });
}
