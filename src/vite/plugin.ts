/**
 * `multicam/vite`: the Vite plugin a host app adds so multicam works in `vite` (dev) and
 * `vite build` alike. It
 *
 * - serves the service worker (`/sw.js`), onnxruntime-web's wasm (`/wasm/ort/`), the VAD model
 *   (`/models/`) and, with `ffmpeg: true`, the optional GPL ffmpeg core (`/wasm/ffmpeg-core/`)
 *   from the installed packages in dev, and emits the same files on build;
 * - sends COOP/COEP on the dev and preview servers (cross-origin isolation: SharedArrayBuffer
 *   and wasm threads);
 * - keeps multicam out of dependency pre-bundling (its workers are found by
 *   `new URL('./workers/…', import.meta.url)`, which pre-bundling would move) and builds workers
 *   as ES modules.
 *
 * @example
 * // vite.config.ts
 * import { defineConfig } from 'vite';
 * import multicam from 'multicam/vite';
 * export default defineConfig({ plugins: [multicam()] });
 *
 * @module
 */
import type { Plugin } from 'vite';
import { servedBytes, servedFiles, type ServedFile } from '../cli/package-assets.ts';

/** Options of the plugin. */
export interface MulticamViteOptions {
  /**
   * Serve and emit the optional ffmpeg core (GPL-2.0-or-later), installed by the app
   * (`npm install @ffmpeg/core`, and `@ffmpeg/core-mt` for threads). The page turns it on with
   * `startMulticam({ engine: true, assets: { ffmpegWasmBase: '/wasm/' } })`. Default false.
   */
  ffmpeg?: boolean;
}

/** The response headers that make a page cross-origin isolated. */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript',
  mjs: 'text/javascript',
  wasm: 'application/wasm',
  json: 'application/json',
  onnx: 'application/octet-stream',
};

/** The Vite plugin; see the module comment. */
export default function multicam(options: MulticamViteOptions = {}): Plugin {
  let files: ServedFile[] = [];
  let byUrl = new Map<string, ServedFile>();
  return {
    name: 'multicam',
    config() {
      return {
        optimizeDeps: { exclude: ['multicam'] },
        worker: { format: 'es' },
        server: { headers: { ...ISOLATION_HEADERS } },
        preview: { headers: { ...ISOLATION_HEADERS } },
      };
    },
    configResolved(config) {
      // Checked once, up front: a missing core or an unbuilt package fails here, naming the fix.
      files = servedFiles({ ffmpeg: options.ffmpeg === true, appRoot: config.root });
      byUrl = new Map(files.map((f) => [`/${f.path}`, f]));
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!;
        const file = byUrl.get(path);
        if (!file) return next();
        const body = servedBytes(file);
        res.setHeader('Content-Type', TYPES[path.split('.').pop() ?? ''] ?? 'application/octet-stream');
        res.setHeader('Content-Length', body.length);
        res.setHeader('Cache-Control', 'no-cache');
        for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
        res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
        res.end(body);
      });
    },
    generateBundle() {
      for (const f of files) this.emitFile({ type: 'asset', fileName: f.path, source: servedBytes(f) });
    },
  };
}
