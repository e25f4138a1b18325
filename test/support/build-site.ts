/**
 * One small Vite build of test pages, shared by the browser tests and benchmarks: each
 * builds only the pages it drives (seconds instead of the whole app) into its own folder
 * under .cache, optionally with the service worker at /sw.js, and links folders such as
 * the pinned `wasm/` assets or a fixture directory beside them so one origin serves all.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'vite';
import { newestMtime } from '../../src/cli/site.ts';

/** The repository root: page paths are relative to it. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** What buildSite linked into each outDir in this process: the static server follows only these links. */
const linked = new Map<string, string[]>();

/**
 * The targets {@link buildSite} linked into `outDir` in this process, for serveStatic's `allow`
 * (src/cli/serve.ts refuses any other symlink out of the site).
 *
 * @example
 * server = await serveStatic(SITE, { allow: siteLinks(SITE) });
 */
export function siteLinks(outDir: string): string[] {
  return [...(linked.get(resolve(outDir)) ?? [])];
}

/** What {@link buildSite} builds. */
export interface BuildSiteOptions {
  /** Entry pages: chunk name → HTML path relative to the repository root (a leading `/` is allowed). */
  pages: Record<string, string>;
  /** The folder the site is built into (emptied first); served as the site root. */
  outDir: string;
  /** Also bundle src/sw/sw.ts as `/sw.js`, so it can be registered with scope `/`. */
  sw?: boolean;
  /** Folders to serve beside the pages: link name → absolute target (replaced on every call). */
  links?: Record<string, string>;
  /**
   * Keep an earlier build of `outDir` (marked by `.built`) instead of rebuilding; set
   * `MULTICAM_REBUILD=1` to force a rebuild. Links are refreshed either way.
   */
  reuse?: boolean;
  /**
   * Build these pages once for every test file that asks for the same pages (into
   * `.cache/site-builds/<key>`, rebuilt when a source is newer than that build) and make `outDir`
   * a folder of links to it plus `links`: four files drive the engine page, and one build serves them.
   */
  shared?: boolean;
}

/** What a test page's build reads: a change to any of them makes the next shared build rebuild. */
const SOURCES = ['src', 'workers', 'test/browser/pages', 'vite.config.ts', 'package-lock.json'];

/** Vite's build of `pages` (and /sw.js) into `outDir`. */
async function viteBuild(pages: Record<string, string>, sw: boolean, outDir: string): Promise<void> {
  const input: Record<string, string> = {};
  for (const [name, page] of Object.entries(pages)) input[name] = join(ROOT, page.replace(/^\//, ''));
  if (sw) input['sw'] = join(ROOT, 'src/sw/sw.ts');
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    base: '/',
    publicDir: false,
    worker: { format: 'es' },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2023',
      sourcemap: false,
      rollupOptions: {
        input,
        // The service worker must be /sw.js (scope /), as in the app's build.
        ...(sw
          ? {
              output: {
                entryFileNames: (chunk: { name: string }) =>
                  chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js',
              },
            }
          : {}),
      },
    },
  });
}

/**
 * The shared build of `pages` (see {@link BuildSiteOptions.shared}): built unless a build of the
 * same pages is newer than every source; returns its folder.
 */
async function sharedBuild(pages: Record<string, string>, sw: boolean): Promise<string> {
  const key = createHash('sha256').update(JSON.stringify({ pages, sw })).digest('hex').slice(0, 12);
  const dir = join(ROOT, '.cache/site-builds', key);
  const stamp = join(dir, '.built-at');
  const sources = SOURCES.map((p) => join(ROOT, p)).filter((p) => existsSync(p));
  const fresh =
    process.env['MULTICAM_REBUILD'] !== '1' &&
    existsSync(stamp) &&
    !sources.some((p) => newestMtime(p) >= statSync(stamp).mtimeMs);
  if (fresh) return dir;
  // Built aside, then swapped in whole: a build that dies leaves no half-written site behind.
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await viteBuild(pages, sw, tmp);
  writeFileSync(join(tmp, '.built-at'), new Date().toISOString());
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(ROOT, '.cache/site-builds'), { recursive: true });
  renameSync(tmp, dir);
  return dir;
}

/**
 * Builds `pages` (and their workers, as ES modules) into `outDir` and links `links` beside them.
 *
 * @example
 * await buildSite({ pages: { engine: 'test/browser/pages/engine.html' }, outDir: join(ROOT, '.cache/engine-site'), sw: true,
 *   links: { wasm: join(ROOT, 'wasm'), fixture: fixture.dir } });
 */
export async function buildSite(options: BuildSiteOptions): Promise<string> {
  const { outDir } = options;
  const marker = join(outDir, '.built');
  const built: string[] = [];
  if (options.shared) {
    const dir = await sharedBuild(options.pages, options.sw === true);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    for (const entry of readdirSync(dir)) {
      if (entry === '.built-at') continue;
      symlinkSync(join(dir, entry), join(outDir, entry));
      built.push(join(dir, entry));
    }
  } else if (!options.reuse || !existsSync(marker) || process.env['MULTICAM_REBUILD'] === '1') {
    rmSync(outDir, { recursive: true, force: true });
    await viteBuild(options.pages, options.sw === true, outDir);
    if (options.reuse) writeFileSync(marker, new Date().toISOString());
  }
  for (const [name, target] of Object.entries(options.links ?? {})) {
    rmSync(join(outDir, name), { force: true });
    symlinkSync(target, join(outDir, name));
  }
  linked.set(resolve(outDir), [...built, ...Object.values(options.links ?? {})]);
  return outDir;
}

/** Throws the same message everywhere when the pinned ffmpeg.wasm core was not copied yet. */
export function requireFfmpegCore(): void {
  if (!existsSync(join(ROOT, 'wasm/ffmpeg-core/ffmpeg-core.wasm'))) {
    throw new Error('wasm/ffmpeg-core is missing: run node scripts/copy-assets.mjs');
  }
}
