// Pinning runtime assets from installed packages: each file copied, with a manifest of package,
// version, licence and sha256. Used by scripts/copy-assets.mjs (the repository's demo and tests)
// and scripts/build-lib.mjs (the npm package's dist/assets/).
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = (name) => join(ROOT, 'node_modules', name);
const pkgJson = (name) => JSON.parse(readFileSync(join(pkgDir(name), 'package.json'), 'utf8'));
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * Copies `files` from `node_modules/<name>/<fromSub>/` into `toDir`.
 * @param {string} name @param {string} fromSub @param {string[]} files @param {string} toDir
 */
export function pin(name, fromSub, files, toDir) {
  const meta = pkgJson(name);
  mkdirSync(toDir, { recursive: true });
  const entries = [];
  for (const file of files) {
    const src = join(pkgDir(name), fromSub, file);
    if (!existsSync(src)) throw new Error(`pin-assets: ${src} is missing; run npm ci`);
    const dst = join(toDir, file);
    copyFileSync(src, dst);
    entries.push({ file, sha256: sha256(dst) });
  }
  return { package: name, version: meta.version, license: meta.license, files: entries };
}

/** @param {string} dir @param {object[]} items @param {string} generatedBy */
export function writeManifest(dir, items, generatedBy) {
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ generatedBy, assets: items }, null, 2) + '\n');
}

/**
 * onnxruntime-web's wasm files a job loads: the plain SIMD/threads build (CPU) and the JSEP
 * build (WebGPU), each a `.wasm` and its `.mjs` glue (src/models/ort-loader.ts).
 */
export function ortWasmFiles() {
  return readdirSync(join(pkgDir('onnxruntime-web'), 'dist')).filter((f) =>
    /^ort-wasm-simd-threaded(\.jsep)?\.(wasm|mjs)$/.test(f),
  );
}
