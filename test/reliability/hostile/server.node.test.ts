/**
 * The local static server (src/cli/serve.ts) and the Chromium launch flags (src/cli/chromium.ts)
 * against a hostile page or user: raw HTTP requests over node:net, so the request line and the
 * Host header are exactly what an attacker would send. A malformed escape must not kill the
 * server; a symlink out of the root must not be followed unless its target was allowed; a
 * foreign Host (DNS rebinding) is refused; HEAD never carries a body; the CSP keeps the page's
 * connections on loopback; the sandbox stays on unless running as root or asked otherwise.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumFlags } from '../../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../../src/cli/serve.ts';
import { buildSite, siteLinks } from '../../support/build-site.ts';
import { patient } from '../../support/patience.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Sends `head` (request line and headers, no final blank line) as written and reads the whole answer. */
function raw(port: number, head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    // A server that never answers (the old one, after throwing) must fail the test, not hang it.
    socket.setTimeout(patient(5_000), () => socket.destroy(new Error(`no answer to ${head.split('\r\n')[0]}`)));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP answer: ${all.toString('latin1')}`));
      const [statusLine = '', ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: all.subarray(split + 4) });
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

const BODY = 'x'.repeat(1000);

describe('the static server under hostile requests', () => {
  let dir: string;
  let server: StaticServer;
  let port: number;
  const get = (path: string, host = `127.0.0.1:${port}`, method = 'GET', extra = ''): Promise<RawResponse> =>
    raw(port, `${method} ${path} HTTP/1.1\r\nHost: ${host}${extra}`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'multicam-serve-'));
    const root = join(dir, 'site');
    const outside = join(dir, 'outside');
    const allowed = join(dir, 'allowed');
    mkdirSync(root);
    mkdirSync(outside);
    mkdirSync(allowed);
    writeFileSync(join(root, 'index.html'), '<p>home</p>');
    writeFileSync(join(root, 'data.bin'), BODY);
    writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET-CONTENT');
    writeFileSync(join(outside, 'given.mp4'), 'given footage');
    writeFileSync(join(allowed, 'asset.wasm'), 'asset');
    // Planted: a link to a folder nobody allowed, and one to a system file.
    symlinkSync(outside, join(root, 'planted'));
    symlinkSync('/etc/hostname', join(root, 'hostname'));
    // Registered by the caller, as test/support/build-site.ts and scripts/demo.ts do.
    symlinkSync(allowed, join(root, 'wasm'));
    symlinkSync(join(outside, 'given.mp4'), join(root, 'given.mp4'));
    // A link inside an allowed folder that leads out of it again.
    symlinkSync(join(outside, 'secret.txt'), join(allowed, 'escape.txt'));
    server = await serveStatic(root, { index: 'index.html', allow: [allowed, join(outside, 'given.mp4')] });
    port = Number(new URL(server.origin).port);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a malformed percent-escape gets 400, and the server answers the next request', async () => {
    const bad = await get('/%E0%A4%A');
    expect(bad.status).toBe(400);
    const next = await get('/index.html');
    expect(next.status).toBe(200);
    expect(next.body.toString()).toBe('<p>home</p>');
  });

  test('a symlink planted inside the root that leads out of it is refused', async () => {
    for (const path of ['/planted/secret.txt', '/hostname', '/wasm/escape.txt']) {
      const r = await get(path);
      expect([403, 404], path).toContain(r.status);
      expect(r.body.toString(), path).not.toContain('TOP-SECRET-CONTENT');
    }
  });

  test('a symlink to an allowed folder or file is served', async () => {
    const asset = await get('/wasm/asset.wasm');
    expect(asset.status).toBe(200);
    expect(asset.body.toString()).toBe('asset');
    const given = await get('/given.mp4');
    expect(given.status).toBe(200);
    expect(given.body.toString()).toBe('given footage');
  });

  test('only the loopback names of the bound port are served (no DNS rebinding)', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await get('/index.html', host)).status, host).toBe(200);
    }
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1:${port + 1}`, '127.0.0.1']) {
      const r = await get('/index.html', host);
      expect([403, 421], host).toContain(r.status);
      expect(r.body.toString(), host).not.toContain('home');
    }
  });

  test('HEAD with a Range answers 206 headers and no body', async () => {
    const r = await get('/data.bin', `127.0.0.1:${port}`, 'HEAD', '\r\nRange: bytes=0-99');
    expect(r.status).toBe(206);
    expect(r.headers['content-length']).toBe('100');
    expect(r.body.length).toBe(0);
    const full = await get('/data.bin', `127.0.0.1:${port}`, 'GET', '\r\nRange: bytes=0-99');
    expect(full.body.toString()).toBe(BODY.slice(0, 100));
  });

  test('the CSP lets the page connect to itself and loopback only', async () => {
    const csp = (await get('/index.html')).headers['content-security-policy'] ?? '';
    const connect = /connect-src ([^;]*)/.exec(csp)?.[1]?.split(/\s+/) ?? [];
    expect(connect).toContain("'self'");
    expect(connect).toContain('http://127.0.0.1:*');
    expect(connect).not.toContain('http:');
    expect(connect).not.toContain('https:');
  });
});

test('an explicit connect-src origin is added to the CSP', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'multicam-serve-csp-'));
  writeFileSync(join(dir, 'index.html'), 'x');
  const server = await serveStatic(dir, { index: 'index.html', connectSrc: ['https://hooks.example.com'] });
  try {
    const r = await raw(Number(new URL(server.origin).port), `GET / HTTP/1.1\r\nHost: ${new URL(server.origin).host}`);
    expect(r.headers['content-security-policy']).toMatch(/connect-src [^;]*https:\/\/hooks\.example\.com/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("buildSite's links are what its callers allow: served with siteLinks(outDir), refused without", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'multicam-serve-site-'));
  const outDir = join(dir, 'site');
  const assets = join(dir, 'assets');
  mkdirSync(outDir);
  mkdirSync(assets);
  writeFileSync(join(assets, 'core.wasm'), 'core');
  // An earlier build kept (reuse): buildSite only refreshes the links, no Vite build runs.
  writeFileSync(join(outDir, '.built'), 'kept');
  const previous = process.env['MULTICAM_REBUILD'];
  delete process.env['MULTICAM_REBUILD'];
  try {
    await buildSite({ pages: {}, outDir, reuse: true, links: { wasm: assets } });
  } finally {
    if (previous !== undefined) process.env['MULTICAM_REBUILD'] = previous;
  }
  const allowed = await serveStatic(outDir, { allow: siteLinks(outDir) });
  const bare = await serveStatic(outDir);
  try {
    const host = (s: StaticServer): string => new URL(s.origin).host;
    const port = (s: StaticServer): number => Number(new URL(s.origin).port);
    const served = await raw(port(allowed), `GET /wasm/core.wasm HTTP/1.1\r\nHost: ${host(allowed)}`);
    expect(served.status).toBe(200);
    expect(served.body.toString()).toBe('core');
    const refused = await raw(port(bare), `GET /wasm/core.wasm HTTP/1.1\r\nHost: ${host(bare)}`);
    expect(refused.status).toBe(403);
  } finally {
    await allowed.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('Chromium sandbox flags', () => {
  test('root: no sandbox (Chromium refuses to start with it as root)', () => {
    expect(chromiumFlags({ uid: 0, env: {} })).toContain('--no-sandbox');
  });
  test('another user: the sandbox stays on', () => {
    const flags = chromiumFlags({ uid: 1000, env: {} });
    expect(flags).not.toContain('--no-sandbox');
    expect(flags).toContain('--headless');
  });
  test('another user who asks for no sandbox (env or option) gets it', () => {
    expect(chromiumFlags({ uid: 1000, env: { MULTICAM_CHROMIUM_NO_SANDBOX: '1' } })).toContain('--no-sandbox');
    expect(chromiumFlags({ uid: 1000, env: {}, noSandbox: true })).toContain('--no-sandbox');
    expect(chromiumFlags({ uid: 1000, env: { MULTICAM_CHROMIUM_NO_SANDBOX: '0' } })).not.toContain('--no-sandbox');
  });
  test('no uid (Windows): the sandbox stays on', () => {
    expect(chromiumFlags({ uid: undefined, env: {} })).not.toContain('--no-sandbox');
  });
});
