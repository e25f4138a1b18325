/**
 * `npx tsx bench/sizes/run.ts`: what the package weighs (issue 34). Prints
 *
 * - the npm tarball (packed and unpacked) and what it holds: JS, declarations, source maps,
 *   wasm, models;
 * - the consumer app's `vite build` output (test/consumer/app, built by `npm run test:consumer`):
 *   JS (raw and gzip), wasm, models, and anything emitted twice;
 * - what one default job downloads: every file the consumer test's build-mode run downloaded
 *   (test-results/consumer/build-downloads.json), a file fetched twice counted twice, and
 *   which were;
 * - the optional GPL ffmpeg core, for apps that opt in.
 *
 * Sizes, not speed: nothing here depends on the machine. Run `npm run test:consumer` first.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(import.meta.dirname, '../..');
const APP_DIST = join(ROOT, '.cache/consumer/app/dist');
const REQUESTS = join(ROOT, 'test-results/consumer/build-requests.json');

const mb = (n: number): string => `${(n / 1e6).toFixed(2)} MB`;
const pad = (s: string, n: number): string => s.padEnd(n);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

function row(label: string, bytes: number, extra = ''): void {
  console.log(`  ${pad(label, 44)} ${mb(bytes).padStart(10)}${extra ? `  ${extra}` : ''}`);
}

interface BuiltFile {
  path: string;
  bytes: number;
  file: string;
}

const isJs = (p: string): boolean => p.endsWith('.js') || p.endsWith('.mjs');
const bytesOf = (list: readonly BuiltFile[], pred: (p: string) => boolean): number =>
  list.filter((f) => pred(f.path)).reduce((s, f) => s + f.bytes, 0);

/** Rows for `list`: everything, JavaScript (with gzip), wasm (named), models. */
function breakdown(list: readonly BuiltFile[], label: string): void {
  const jsGzip = list.filter((f) => isJs(f.path)).reduce((s, f) => s + gzipSync(readFileSync(f.file)).length, 0);
  const wasm = list.filter((f) => f.path.endsWith('.wasm')).map((f) => f.path);
  row(
    label,
    bytesOf(list, () => true),
  );
  row('JavaScript (app, library, workers, sw.js)', bytesOf(list, isJs), `gzip ${mb(jsGzip)}`);
  row(
    'wasm',
    bytesOf(list, (p) => p.endsWith('.wasm')),
    wasm.join(', '),
  );
  row(
    'models',
    bytesOf(list, (p) => p.endsWith('.onnx')),
  );
}

// 1. The tarball.
execFileSync('npm', ['run', 'build:lib', '--silent'], { cwd: ROOT, stdio: 'ignore' });
const [pack] = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
) as Array<{ size: number; unpackedSize: number; entryCount: number; files: Array<{ path: string; size: number }> }>;
const sum = (pred: (p: string) => boolean): number =>
  pack!.files.filter((f) => pred(f.path)).reduce((s, f) => s + f.size, 0);
console.log(`npm package (${pack!.entryCount} files)`);
row('tarball (packed)', pack!.size);
row('unpacked', pack!.unpackedSize);
row(
  'JavaScript (dist/**/*.js)',
  sum((p) => p.endsWith('.js') || p.endsWith('.mjs')),
);
row(
  'declarations (.d.ts)',
  sum((p) => p.endsWith('.d.ts')),
);
row(
  'source maps',
  sum((p) => p.endsWith('.map')),
);
row(
  'onnxruntime-web wasm (CPU + WebGPU)',
  sum((p) => p.endsWith('.wasm')),
);
row(
  'models (Silero VAD, BlazeFace)',
  sum((p) => p.endsWith('.onnx')),
);

// 2. The consumer app's build.
if (!existsSync(APP_DIST)) {
  console.log('\nno consumer build: run `npm run test:consumer` first');
  process.exit(1);
}
const files: BuiltFile[] = walk(APP_DIST).map((file) => ({
  path: file.slice(APP_DIST.length + 1),
  bytes: statSync(file).size,
  file,
}));
console.log(`\nconsumer app, vite build (${files.length} files)`);
breakdown(files, 'everything');
const byContent = new Map<string, string[]>();
for (const f of files) {
  const hash = createHash('sha256').update(readFileSync(f.file)).digest('hex');
  byContent.set(hash, [...(byContent.get(hash) ?? []), f.path]);
}
const twice = [...byContent.values()].filter((paths) => paths.length > 1);
console.log(`  emitted twice: ${twice.length === 0 ? 'nothing' : twice.map((p) => p.join(' = ')).join('; ')}`);

// 3. What one default job downloads (the consumer test's build-mode run: page, workers, wasm, model),
// every download counted, a file fetched twice twice (issue 53: the ort wasm once per worker).
const DOWNLOADS = join(ROOT, 'test-results/consumer/build-downloads.json');
if (existsSync(DOWNLOADS)) {
  const downloads = JSON.parse(readFileSync(DOWNLOADS, 'utf8')) as Array<{
    url: string;
    status: number;
    bytes: number;
  }>;
  const built = new Map(files.map((f) => [f.path, f]));
  // A 304 (vite preview sends ETags) carried no body.
  const got = downloads
    .filter((d) => d.status === 200)
    .map((d) => built.get(new URL(d.url).pathname.slice(1)))
    .filter((f): f is BuiltFile => f !== undefined);
  const times = new Map<string, number>();
  for (const f of got) times.set(f.path, (times.get(f.path) ?? 0) + 1);
  const repeated = [...times].filter(([, n]) => n > 1).map(([path, n]) => `${path} ×${n}`);
  console.log(`\none default job on CPU (tiny fixture, ${got.length} downloads of ${times.size} files)`);
  breakdown(got, 'everything downloaded');
  row(
    'GPL ffmpeg core',
    bytesOf(got, (p) => p.includes('ffmpeg-core')),
  );
  console.log(`  downloaded more than once: ${repeated.length === 0 ? 'nothing' : repeated.join(', ')}`);
} else if (existsSync(REQUESTS)) {
  const urls = JSON.parse(readFileSync(REQUESTS, 'utf8')) as string[];
  const fetched = new Set(urls.map((u) => new URL(u).pathname.slice(1)).filter((p) => p !== ''));
  const got = files.filter((f) => fetched.has(f.path));
  console.log(`\none default job on CPU (tiny fixture, ${got.length} files fetched)`);
  breakdown(got, 'everything fetched');
  row(
    'GPL ffmpeg core',
    bytesOf(got, (p) => p.includes('ffmpeg-core')),
  );
} else console.log('\nno request log: run `npm run test:consumer` first for what a job downloads');

// 4. The optional ffmpeg core.
const core = join(ROOT, 'node_modules/@ffmpeg/core/dist/esm');
const coreMt = join(ROOT, 'node_modules/@ffmpeg/core-mt/dist/esm');
const dirBytes = (dir: string): number => (existsSync(dir) ? walk(dir).reduce((s, f) => s + statSync(f).size, 0) : 0);
console.log('\nthe optional ffmpeg core (GPL-2.0-or-later; the app installs it and opts in)');
row('@ffmpeg/core (single-threaded: AAC, H.264 fallback)', dirBytes(core));
row('@ffmpeg/core-mt (threaded, when cross-origin isolated)', dirBytes(coreMt));
