/**
 * The render worker's test page on the tiny fixture, shared by the browser tier's render tests
 * (test/browser/render.test.ts) and the deep tier's fallback render (test/deep/render-fallback.test.ts):
 * one Chromium, the render site built over the fixture, a cut list cycling through the three
 * cameras with two removed ranges whose edges fall in speech, and ffprobe.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import {
  buildRenderSite,
  RENDER_PAGE,
  ROOT,
  type PageRenderOptions,
  type PageRenderSummary,
} from '../../bench/render/render-site.ts';
import type { Cut, TimeRange } from '../../src/contract/types.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { siteLinks } from './build-site.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from './fixtures.ts';

/** Where the tests write the rendered files. */
export const OUT = join(ROOT, '.cache/render-out');

/** The page and the tiny fixture's edit, ready once the calling file's beforeAll has run. */
export interface TinyRenderPage {
  readonly page: Page;
  readonly truth: Truth;
  /** The first three cameras of the fixture. */
  readonly cameras: () => Truth['sources'];
  /** The three cameras as the page's render takes them. */
  readonly sources: () => PageRenderOptions['sources'];
  /** A cut every 2.4 s cycling through the three cameras, and two removed ranges. */
  readonly edit: () => { cuts: Cut[]; removedRanges: TimeRange[] };
  /** Renders the edit (and `o` on top) in the page's render worker. */
  readonly render: (o?: Partial<PageRenderOptions>) => Promise<PageRenderSummary>;
}

/** Registers the calling file's beforeAll/afterAll that open and close the page. */
export function useTinyRenderPage(): TinyRenderPage {
  let chromium: LaunchedChromium;
  let server: StaticServer;
  let page: Page;
  let truth: Truth;

  beforeAll(async () => {
    const fx = await ensureFixture('tiny');
    truth = fx.truth;
    const site = await buildRenderSite(fx.dir);
    server = await serveStatic(site, { index: RENDER_PAGE.slice(1), allow: siteLinks(site) });
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    await page.goto(`${server.origin}${RENDER_PAGE}`);
    await page.waitForSelector('body[data-ready="1"]');
    mkdirSync(OUT, { recursive: true });
  }, FIXTURE_TIMEOUT_MS);
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  const cameras = () => truth.sources.filter((s) => s.kind === 'video').slice(0, 3);

  const sources = (): PageRenderOptions['sources'] => {
    return cameras().map((s) => ({
      id: s.label,
      kind: 'video' as const,
      url: `/fixture/${s.file}`,
      offsetMs: s.offsetMs,
      driftPpm: s.driftPpm,
      durationMs: s.durationMs,
    }));
  };

  /** A cut every 2.4 s cycling through the three cameras, over the span all three recorded. */
  function edit(): { cuts: Cut[]; removedRanges: TimeRange[] } {
    const cams = cameras();
    const start = Math.ceil(Math.max(...cams.map((c) => c.offsetMs)) / 100) * 100 + 200;
    const end = Math.floor(Math.min(...cams.map((c) => c.endRefMs)) / 100) * 100 - 200;
    const cuts: Cut[] = [];
    let k = 0;
    for (let t = start; t < end; t += 2400, k++)
      cuts.push({ sourceId: cams[k % 3]!.label, startMs: t, endMs: Math.min(end, t + 2400) });
    // Two removed ranges whose both edges fall in speech (a splice there clicks unless faded):
    // the first inside a cut, the second from its first candidate after a camera switch.
    const speaking = (t: number) => truth.turns.some((u) => u.startMs <= t - 150 && u.endMs >= t + 150);
    const removedRanges: TimeRange[] = [];
    for (const [from, len] of [
      [start + 2600, 700],
      [start + 6400, 1100],
    ] as const) {
      for (let a = from; a < end - len - 500; a += 50) {
        if (speaking(a) && speaking(a + len)) {
          removedRanges.push({ startMs: a, endMs: a + len });
          break;
        }
      }
    }
    return { cuts, removedRanges };
  }

  async function render(o: Partial<PageRenderOptions> = {}): Promise<PageRenderSummary> {
    return page.evaluate((opts) => window.renderTest.render(opts), {
      ...edit(),
      sources: sources(),
      ...o,
    });
  }

  return {
    get page() {
      return page;
    },
    get truth() {
      return truth;
    },
    cameras,
    sources,
    edit,
    render,
  };
}

/** Debian's ffprobe on a rendered file (every frame counted). */
export function ffprobe(path: string): {
  format: { duration: string };
  streams: Array<{
    codec_type: string;
    codec_name: string;
    nb_frames?: string;
    nb_read_frames?: string;
    duration?: string;
    width?: number;
    height?: number;
    profile?: string;
    sample_rate?: string;
    channels?: number;
  }>;
} {
  const r = spawnSync('ffprobe', [
    '-v',
    'error',
    '-count_frames',
    '-show_format',
    '-show_streams',
    '-of',
    'json',
    path,
  ]);
  if (r.status !== 0) throw new Error(`ffprobe ${path}: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString());
}
