/**
 * One small Vite build of test pages, shared by the browser tests and benchmarks: each
 * builds only the pages it drives (seconds instead of the whole app) into its own folder
 * under .cache, optionally with the service worker at /sw.js, and links folders such as
 * the pinned `wasm/` assets or a fixture directory beside them so one origin serves all.
 *
 * @module
 */
import { existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'vite';

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
  if (!options.reuse || !existsSync(marker) || process.env['MULTICAM_REBUILD'] === '1') {
    rmSync(outDir, { recursive: true, force: true });
    const input: Record<string, string> = {};
    for (const [name, page] of Object.entries(options.pages)) input[name] = join(ROOT, page.replace(/^\//, ''));
    if (options.sw) input['sw'] = join(ROOT, 'src/sw/sw.ts');
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
          ...(options.sw
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
    if (options.reuse) writeFileSync(marker, new Date().toISOString());
  }
  for (const [name, target] of Object.entries(options.links ?? {})) {
    rmSync(join(outDir, name), { force: true });
    symlinkSync(target, join(outDir, name));
  }
  linked.set(resolve(outDir), Object.values(options.links ?? {}));
  return outDir;
}

/** Throws the same message everywhere when the pinned ffmpeg.wasm core was not copied yet. */
export function requireFfmpegCore(): void {
  if (!existsSync(join(ROOT, 'wasm/ffmpeg-core/ffmpeg-core.wasm'))) {
    throw new Error('wasm/ffmpeg-core is missing: run node scripts/copy-assets.mjs');
  }
}
