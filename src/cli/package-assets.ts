/**
 * The files a host app serves from its own origin for multicam, as the installed package holds
 * them: the service worker, onnxruntime-web's wasm and the Silero VAD model (MIT), each folder
 * with its manifest (package, version, licence, sha256 of every file). With `ffmpeg: true`, the
 * optional ffmpeg core (GPL-2.0-or-later), which the app installs itself (`@ffmpeg/core`, and
 * `@ffmpeg/core-mt` for threads): the package never ships it. `npx multicam init` copies these
 * files; the Vite plugin (`multicam/vite`) serves them in dev and emits them on build.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * One file to serve: its path under the app's root URL (`wasm/ort/…`) and where it is on disk,
 * or (a manifest made for the app's own ffmpeg core) its text.
 */
export type ServedFile = {
  /** Path under the app's public root, e.g. `sw.js`, `wasm/ort/ort-wasm-simd-threaded.wasm`. */
  path: string;
} & ({ /** Absolute path on disk. */ file: string } | { text: string });

/** The bytes of a served file. */
export function servedBytes(f: ServedFile): Buffer {
  return 'file' in f ? readFileSync(f.file) : Buffer.from(f.text);
}

/** What to serve. */
export interface ServedFilesOptions {
  /** Also serve the optional GPL ffmpeg core, from the app's own `node_modules`. */
  ffmpeg?: boolean;
  /** Where the app lives (its `node_modules` is searched for the ffmpeg core); default the current folder. */
  appRoot?: string;
}

/** A setup mistake: the message names the fix. */
export class MulticamSetupError extends Error {
  override readonly name = 'MulticamSetupError';
}

/** The multicam package folder: the nearest folder above this file whose package.json is named multicam. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'multicam') return dir;
    const up = dirname(dir);
    if (up === dir)
      throw new MulticamSetupError(
        'multicam: cannot find the package folder (no package.json named multicam above this file)',
      );
    dir = up;
  }
}

/** The package's own files to serve (service worker, ort wasm, VAD and face models, their manifests). */
const PACKAGE_FILES: ReadonlyArray<{ path: string; from: string }> = [
  { path: 'sw.js', from: 'dist/sw.js' },
  ...[
    'manifest.json',
    'ort-wasm-simd-threaded.wasm',
    'ort-wasm-simd-threaded.mjs',
    'ort-wasm-simd-threaded.jsep.wasm',
    'ort-wasm-simd-threaded.jsep.mjs',
  ].map((f) => ({ path: `wasm/ort/${f}`, from: `dist/assets/wasm/ort/${f}` })),
  ...[
    'manifest.json',
    'silero_vad_v6.onnx',
    'face_detection_front_128x128_barracuda.onnx',
    'blazeface.LICENSE.txt',
  ].map((f) => ({ path: `models/${f}`, from: `dist/assets/models/${f}` })),
];

/** The ffmpeg cores an app may install, and their files. */
const FFMPEG_CORES: ReadonlyArray<{ name: string; folder: string; files: string[]; required: boolean }> = [
  { name: '@ffmpeg/core', folder: 'ffmpeg-core', files: ['ffmpeg-core.js', 'ffmpeg-core.wasm'], required: true },
  {
    name: '@ffmpeg/core-mt',
    folder: 'ffmpeg-core-mt',
    files: ['ffmpeg-core.js', 'ffmpeg-core.wasm', 'ffmpeg-core.worker.js'],
    required: false,
  },
];

/** The folder of an installed package, searched in `node_modules` from `from` upwards, or null. */
function installed(name: string, from: string): string | null {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/**
 * Every file to serve, checked to exist. Throws {@link MulticamSetupError} naming the fix when
 * the package is not built or the ffmpeg core is asked for but not installed.
 */
export function servedFiles(options: ServedFilesOptions = {}): ServedFile[] {
  const root = packageRoot();
  const out = PACKAGE_FILES.map(({ path, from }) => ({ path, file: join(root, from) }));
  const missing = out.filter((f) => !existsSync(f.file));
  if (missing.length > 0)
    throw new MulticamSetupError(
      `multicam: the package has no ${missing.map((f) => f.path).join(', ')} (in a checkout of the repository, run \`npm run build:lib\`)`,
    );
  return options.ffmpeg ? [...out, ...ffmpegFiles(options.appRoot ?? process.cwd())] : out;
}

/**
 * The ffmpeg core files from the app's `node_modules`, and a manifest per core folder (package,
 * version, licence, sha256 of every file).
 */
function ffmpegFiles(appRoot: string): ServedFile[] {
  const out: ServedFile[] = [];
  for (const core of FFMPEG_CORES) {
    const dir = installed(core.name, appRoot);
    if (!dir) {
      if (core.required)
        throw new MulticamSetupError(
          `multicam: ffmpeg is on, but ${core.name} is not installed in ${appRoot}: run \`npm install ${core.name}\` (GPL-2.0-or-later; add @ffmpeg/core-mt too for the threaded core), or turn ffmpeg off`,
        );
      continue;
    }
    const files = core.files.map((f) => ({ path: `wasm/${core.folder}/${f}`, file: join(dir, 'dist/esm', f) }));
    const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; license: string };
    const assets = [
      {
        package: core.name,
        version: meta.version,
        license: meta.license,
        files: files.map((f) => ({ file: f.path.split('/').pop()!, sha256: sha256(f.file) })),
      },
    ];
    const text = JSON.stringify({ generatedBy: 'multicam', assets }, null, 2) + '\n';
    out.push(...files, { path: `wasm/${core.folder}/manifest.json`, text });
  }
  return out;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Total bytes of `files`. */
export function totalBytes(files: readonly ServedFile[]): number {
  return files.reduce((sum, f) => sum + ('file' in f ? statSync(f.file).size : Buffer.byteLength(f.text)), 0);
}
