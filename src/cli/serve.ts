/**
 * A small static server for the built app: 127.0.0.1 only, with the COOP/COEP headers that
 * give cross-origin isolation (SharedArrayBuffer, wasm threads), a Content Security Policy,
 * and HTTP Range support. Used by `npm run demo`, the browser tests and the benchmarks.
 *
 * What it promises to a hostile page or request: it answers only requests whose Host names
 * its own loopback address and port (a DNS-rebinding page gets 421); it serves only files
 * whose real path (symlinks resolved) lies inside the root or inside a folder or file the
 * caller listed in `allow`; a malformed request gets a 4xx and an unexpected error a 500,
 * and the server keeps running either way.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.wav': 'audio/wav',
  '.webmanifest': 'application/manifest+json',
};

/**
 * Where the page may connect by default: itself, blobs and data, and loopback, where webhook
 * receivers run in the demo and the tests. Anything else must be named (`connectSrc`).
 */
export const DEFAULT_CONNECT_SRC: readonly string[] = [
  "'self'",
  'blob:',
  'data:',
  'http://127.0.0.1:*',
  'http://localhost:*',
];

/** The Content Security Policy, with `connectSrc` origins added to {@link DEFAULT_CONNECT_SRC}. */
export function contentSecurityPolicy(connectSrc: readonly string[] = []): string {
  for (const source of connectSrc) {
    // One source per entry: a space or ';' would smuggle in other sources or directives.
    if (!/^[^\s;,]+$/.test(source)) throw new Error(`connect-src: not a single CSP source: ${JSON.stringify(source)}`);
  }
  return (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
    "style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; media-src 'self' blob:; " +
    `connect-src ${[...DEFAULT_CONNECT_SRC, ...connectSrc].join(' ')}; ` +
    "object-src 'none'; base-uri 'self'; frame-ancestors 'self'"
  );
}

/** Headers every response carries: isolation for SharedArrayBuffer, and a strict CSP. */
export function securityHeaders(connectSrc: readonly string[] = []): Record<string, string> {
  return {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Content-Security-Policy': contentSecurityPolicy(connectSrc),
    'X-Content-Type-Options': 'nosniff',
  };
}

/** {@link securityHeaders} with no extra connect-src origins. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = securityHeaders();

/** How {@link serveStatic} serves. */
export interface ServeOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** The file `/` serves, relative to the root (default `demo/index.html`). */
  index?: string;
  /**
   * Folders and files outside the root that symlinks inside it may lead to (e.g. the folders
   * test/support/build-site.ts links beside its pages, the files `npm run demo` is given).
   * Any other symlink out of the root is refused.
   */
  allow?: readonly string[];
  /** Further origins the page may connect to (CSP `connect-src`), e.g. a webhook receiver. */
  connectSrc?: readonly string[];
  /**
   * Single files served at their own URL paths from outside the root, e.g.
   * `{ '/host-models/lr-asd.onnx': '/data/models/lr-asd.onnx' }` (`multicam edit
   * --active-speaker-model`). Only these exact paths: nothing beside the files is served.
   */
  files?: Readonly<Record<string, string>>;
}

export interface StaticServer {
  server: Server;
  origin: string;
  close(): Promise<void>;
}

/** The real path of `path`, or its absolute path while it does not exist yet. */
function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

const inside = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res
    .writeHead(status, {
      ...headers,
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
    })
    .end(text);
}

/**
 * Serves `root` on 127.0.0.1 (port 0 picks a free port). `/` serves `index`. The second
 * argument is the port or a {@link ServeOptions}.
 */
export async function serveStatic(
  root: string,
  portOrOptions: number | ServeOptions = 0,
  index = 'demo/index.html',
): Promise<StaticServer> {
  const options: ServeOptions = typeof portOrOptions === 'number' ? { port: portOrOptions, index } : portOrOptions;
  const indexPath = options.index ?? index;
  const base = resolve(root);
  const realBase = realOrResolved(base);
  // Resolved now: the caller lists what it linked; a later swap of a listed path is not followed.
  const allowed = (options.allow ?? []).map((p) => {
    const real = realOrResolved(p);
    // Missing now: treated as a folder, which is what build-site links usually are.
    const dir = statSync(real, { throwIfNoEntry: false })?.isDirectory() ?? true;
    return { real, dir };
  });
  const extraFiles: Record<string, string> = { ...options.files };
  for (const file of Object.values(extraFiles)) allowed.push({ real: realOrResolved(file), dir: false });
  const mayServe = (real: string): boolean =>
    inside(real, realBase) || allowed.some((a) => (a.dir ? inside(real, a.real) : real === a.real));
  const security = securityHeaders(options.connectSrc);
  let hosts = new Set<string>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends its own name.
    if (!hosts.has((req.headers.host ?? '').toLowerCase())) {
      plain(res, 421, 'misdirected request: this server answers only to its loopback address\n', security);
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    } catch {
      plain(res, 400, 'bad request: malformed URL\n', security);
      return;
    }
    if (path.includes('\0')) {
      plain(res, 400, 'bad request: NUL in path\n', security);
      return;
    }
    if (path === '/') path = `/${indexPath}`;
    if (path.endsWith('/')) path += 'index.html';
    const named = Object.hasOwn(extraFiles, path) ? extraFiles[path] : undefined;
    const file = named ?? normalize(join(base, path));
    if (named === undefined && !inside(file, base)) {
      plain(res, 403, 'forbidden\n', security);
      return;
    }
    let real: string;
    let size: number;
    try {
      real = realpathSync(file);
      const st = statSync(real);
      if (!st.isFile()) throw new Error('not a file');
      size = st.size;
    } catch {
      plain(res, 404, `not found: ${path}\n`, security);
      return;
    }
    if (!mayServe(real)) {
      plain(res, 403, `forbidden: ${path} leads outside the served folders\n`, security);
      return;
    }
    const headers: Record<string, string> = {
      ...security,
      'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'no-cache',
    };
    if (path.endsWith('/sw.js')) headers['Service-Worker-Allowed'] = '/';
    const send = (status: number, extra: Record<string, string>, range?: { start: number; end: number }): void => {
      res.writeHead(status, { ...headers, ...extra });
      // HEAD: headers only, and the file is not even opened.
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      // A read error after the headers went out can only cut the response short.
      pipeline(createReadStream(real, range), res, () => undefined);
    };
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (range && (range[1] || range[2])) {
      const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
      const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      if (start >= size || start > end) {
        res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      const contentRange = `bytes ${start}-${end}/${size}`;
      send(206, { 'Content-Range': contentRange, 'Content-Length': String(end - start + 1) }, { start, end });
      return;
    }
    send(200, { 'Content-Length': String(size) });
  };

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      // Nothing a request does may take the server down.
      console.error(`serveStatic: ${req.method} ${req.url}: ${(error as Error).message}`);
      if (!res.headersSent) plain(res, 500, 'internal error\n', security);
      else res.destroy();
    }
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', fail);
      ok();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  // Browsers leave the default port out of Host.
  hosts = new Set([...names.map((n) => `${n}:${actualPort}`), ...(actualPort === 80 ? names : [])]);
  return {
    server,
    origin: `http://127.0.0.1:${actualPort}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
