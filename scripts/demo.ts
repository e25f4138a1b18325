/**
 * `npm run demo [-- cam1.mp4 cam2.mp4 --audio mic.wav …]`: makes the built-in sample if it
 * is missing (scripts/make-sample.ts), builds the app and serves it on 127.0.0.1 with
 * COOP/COEP headers. Open the printed URL (on a headless machine: from a browser on a
 * machine that can reach it, e.g. through `ssh -L 5173:127.0.0.1:5173`). The page runs the
 * whole service (service worker, IndexedDB, workers) with no backend. Files given on the
 * command line are served under /sample/given/ and the page offers them as "files given on
 * the command line". PORT picks the port (default 5173).
 *
 * The page may connect only to itself and to loopback (a webhook receiver on this machine);
 * `--connect-src https://hooks.example.com` (repeatable) lets it reach another origin, e.g. to
 * deliver webhooks there. The server answers only to 127.0.0.1/localhost on its own port: an
 * SSH tunnel must keep the port (`ssh -L 5173:127.0.0.1:5173`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { SampleManifest } from '../demo/sample/manifest.ts';
import { serveStatic } from '../src/cli/serve.ts';
import { makeSample } from './make-sample.ts';

const ROOT = resolve(import.meta.dirname, '..');
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    audio: { type: 'string', multiple: true },
    'no-build': { type: 'boolean' },
    'connect-src': { type: 'string', multiple: true },
  },
});
const given = [
  ...positionals.map((p) => ({ path: p, kind: 'video' as const })),
  ...(values.audio ?? []).map((p) => ({ path: p, kind: 'audio' as const })),
];
for (const g of given) {
  if (!existsSync(g.path) || !statSync(g.path).isFile()) {
    console.error(`npm run demo: ${g.kind === 'audio' ? '--audio ' : ''}${g.path}: no such file`);
    process.exit(2);
  }
}

const sampleDir = makeSample({ root: ROOT });
if (!values['no-build']) {
  execFileSync('node', ['scripts/copy-assets.mjs'], { stdio: 'inherit', cwd: ROOT });
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit', cwd: ROOT });
}
const dist = join(ROOT, 'dist-app');
// vite.config copies the sample on build; --no-build (or a build made before the sample) gets it here.
if (!existsSync(join(dist, 'sample/manifest.json'))) cpSync(sampleDir, join(dist, 'sample'), { recursive: true });
// A previous run's files are not offered again.
const givenDir = join(dist, 'sample/given');
rmSync(givenDir, { recursive: true, force: true });
if (given.length > 0) {
  // Links, not copies: the page streams the files from disk through the static server.
  const dir = givenDir;
  mkdirSync(dir, { recursive: true });
  const files: SampleManifest['files'] = given.map((g, i) => {
    const file = `${i + 1}-${basename(g.path).replace(/[^\w.-]+/g, '_')}`;
    symlinkSync(resolve(g.path), join(dir, file));
    return { file, label: basename(g.path).replace(/\.[^.]+$/, ''), kind: g.kind, size: statSync(g.path).size };
  });
  const manifest: SampleManifest = {
    version: 'command line',
    title: given.map((g) => basename(g.path)).join(', '),
    files,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
}
const port = Number(process.env['PORT'] ?? 5173);
// The given files are links out of dist-app/: the server follows those and no others.
const server = await serveStatic(dist, {
  port,
  allow: given.map((g) => resolve(g.path)),
  connectSrc: values['connect-src'] ?? [],
});
console.log(`multicam demo: ${server.origin}/  settings: ${server.origin}/demo/settings.html  (Ctrl-C to stop)`);
console.log(
  'No browser here? Open that URL from your own machine, e.g. after `ssh -L ' +
    `${port}:127.0.0.1:${port}` +
    ' <this host>`.',
);
if (given.length > 0)
  console.log(
    `files given on the command line: ${given.map((g) => g.path).join(', ')} (the page offers them under "Files")`,
  );
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // An open browser keeps connections alive; close() alone would wait for them.
    server.server.closeAllConnections();
    void server.close().then(() => process.exit(0));
  });
}
