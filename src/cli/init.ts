/**
 * `npx multicam init <publicDir> [--ffmpeg]`: copies what a host app serves for multicam (the
 * service worker, onnxruntime-web's wasm, the VAD model, their manifests; with `--ffmpeg` the
 * optional GPL ffmpeg core from the app's own node_modules) into the app's public folder, the
 * way `msw init public/` copies its worker. For apps that do not use the Vite plugin.
 *
 * @module
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MulticamSetupError, servedFiles, totalBytes } from './package-assets.ts';

/** The usage line of `multicam init`. */
export const INIT_USAGE = 'usage: multicam init <publicDir> [--ffmpeg]';

/** Runs `init` with its arguments; returns the exit code (2 for usage or setup errors). */
export function runInit(args: readonly string[], log: (line: string) => void = console.log): number {
  const ffmpeg = args.includes('--ffmpeg');
  const rest = args.filter((a) => a !== '--ffmpeg');
  if (rest.length !== 1 || rest[0]!.startsWith('-')) {
    log(INIT_USAGE);
    return 2;
  }
  const target = resolve(rest[0]!);
  try {
    const files = servedFiles({ ffmpeg, appRoot: process.cwd() });
    for (const f of files) {
      const to = join(target, f.path);
      mkdirSync(dirname(to), { recursive: true });
      if ('file' in f) copyFileSync(f.file, to);
      else writeFileSync(to, f.text);
    }
    log(`multicam init: ${files.length} files (${(totalBytes(files) / 1e6).toFixed(1)} MB) copied into ${target}`);
    log(
      `  sw.js, wasm/ort/ (onnxruntime-web, MIT), models/ (Silero VAD, MIT; BlazeFace, Apache-2.0)${ffmpeg ? ', wasm/ffmpeg-core*/ (GPL-2.0-or-later)' : ''}`,
    );
    log('  Serve the app with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp.');
    if (ffmpeg)
      log("  Turn the core on in the page: startMulticam({ engine: true, assets: { ffmpegWasmBase: '/wasm/' } }).");
    log('  Run it again after upgrading multicam.');
    return 0;
  } catch (error) {
    if (error instanceof MulticamSetupError) {
      log(error.message);
      return 2;
    }
    throw error;
  }
}
