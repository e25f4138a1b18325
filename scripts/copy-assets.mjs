// Pins the runtime assets the app serves from its own origin (never a CDN):
//   wasm/ffmpeg-core/     @ffmpeg/core (GPL-2.0-or-later; an optional fallback, loaded only when needed)
//   wasm/ffmpeg-core-mt/  @ffmpeg/core-mt (same licence, the threaded build)
//   wasm/ort/             onnxruntime-web's wasm binaries (MIT)
//   models/silero_vad_v6.onnx  from @ricky0123/vad-web (MIT)
// Each folder gets a manifest.json with package, version, sha256 and licence of every file.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = (name) => join(root, 'node_modules', name);
const pkgJson = (name) => JSON.parse(readFileSync(join(pkgDir(name), 'package.json'), 'utf8'));
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

function pin(name, fromSub, files, toDir) {
  const meta = pkgJson(name);
  mkdirSync(toDir, { recursive: true });
  const entries = [];
  for (const file of files) {
    const src = join(pkgDir(name), fromSub, file);
    if (!existsSync(src)) throw new Error(`copy-assets: ${src} is missing; run npm ci`);
    const dst = join(toDir, file);
    copyFileSync(src, dst);
    entries.push({ file, sha256: sha256(dst) });
  }
  return { package: name, version: meta.version, license: meta.license, files: entries };
}

function writeManifest(dir, items) {
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ generatedBy: 'scripts/copy-assets.mjs', assets: items }, null, 2) + '\n',
  );
}

const wasm = join(root, 'wasm');
const core = pin('@ffmpeg/core', 'dist/esm', ['ffmpeg-core.js', 'ffmpeg-core.wasm'], join(wasm, 'ffmpeg-core'));
const coreMt = pin(
  '@ffmpeg/core-mt',
  'dist/esm',
  ['ffmpeg-core.js', 'ffmpeg-core.wasm', 'ffmpeg-core.worker.js'],
  join(wasm, 'ffmpeg-core-mt'),
);
const ortFiles = readdirSync(join(pkgDir('onnxruntime-web'), 'dist')).filter((f) =>
  /^ort-wasm-simd-threaded(\.jsep)?\.(wasm|mjs)$/.test(f),
);
const ort = pin('onnxruntime-web', 'dist', ortFiles, join(wasm, 'ort'));
writeManifest(wasm, [core, coreMt, ort]);

const models = join(root, 'models');
const vad = pin('@ricky0123/vad-web', 'dist', ['silero_vad_v6.onnx'], models);
writeManifest(models, [vad]);
console.log(
  `copy-assets: ffmpeg-core ${core.version}, ffmpeg-core-mt ${coreMt.version}, onnxruntime-web ${ort.version} (${ortFiles.length} files), silero_vad_v6 from vad-web ${vad.version}`,
);
