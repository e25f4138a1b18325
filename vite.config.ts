import { defineConfig } from 'vite';
import { resolve } from 'node:path';
import { cpSync, existsSync, readdirSync } from 'node:fs';

const root = import.meta.dirname;

// Multi-page build: the demo pages and the service worker (emitted as /sw.js so its scope is /).
// `--mode test` also builds the browser-test harness pages from test/browser/pages into dist-test/.
export default defineConfig(({ mode }) => {
  const test = mode === 'test';
  const input: Record<string, string> = {
    index: resolve(root, 'demo/index.html'),
    settings: resolve(root, 'demo/settings.html'),
    // The review editor: reviewUrl is `<origin>/review/?token=…`, served as review/index.html.
    review: resolve(root, 'review/index.html'),
    sw: resolve(root, 'src/sw/sw.ts'),
  };
  if (test) {
    // Every test page (harness.html, and the pages other browser tests drive) is an entry,
    // served at /test/browser/pages/<name>.html.
    const pages = resolve(root, 'test/browser/pages');
    for (const file of readdirSync(pages)) {
      if (file.endsWith('.html')) input[`test-${file.slice(0, -'.html'.length)}`] = resolve(pages, file);
    }
  }
  // MULTICAM_OUT_DIR: the CLI and the browser tests build their own copy (.cache/app-site, src/cli/site.ts), never dist-app/.
  // (dist/ is the library package: scripts/build-lib.mjs.)
  const outDir = process.env['MULTICAM_OUT_DIR']
    ? resolve(process.env['MULTICAM_OUT_DIR'])
    : resolve(root, test ? 'dist-test' : 'dist-app');
  let resolvedOutDir = outDir;
  return {
    root,
    plugins: [
      {
        // The pinned runtime assets (scripts/copy-assets.mjs) are served from the app's own origin.
        name: 'multicam-runtime-assets',
        // Copy into the folder this build really writes to (`--outDir` wins over the config).
        configResolved(config) {
          resolvedOutDir = resolve(root, config.build.outDir);
        },
        closeBundle() {
          for (const dir of ['wasm', 'models']) {
            if (existsSync(resolve(root, dir)))
              cpSync(resolve(root, dir), resolve(resolvedOutDir, dir), { recursive: true });
          }
          // The demo's built-in sample (scripts/make-sample.ts), when it has been made: /sample/.
          if (!test && existsSync(resolve(root, '.cache/sample/manifest.json'))) {
            cpSync(resolve(root, '.cache/sample'), resolve(resolvedOutDir, 'sample'), { recursive: true });
          }
        },
      },
    ],
    base: '/',
    publicDir: false,
    worker: { format: 'es' },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2023',
      sourcemap: true,
      rollupOptions: {
        input,
        output: {
          entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
        },
      },
    },
  };
});
