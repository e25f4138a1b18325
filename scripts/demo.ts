/**
 * `npm run demo`: builds the app and serves it on 127.0.0.1 with COOP/COEP headers.
 * Open the printed URL: the demo page registers the service worker (which answers /api)
 * and links to the settings page (API keys, webhook signing secret). PORT picks the port
 * (default 5173).
 */
import { execFileSync } from 'node:child_process';
import { serveStatic } from '../tools/serve.ts';

execFileSync('node', ['scripts/copy-assets.mjs'], { stdio: 'inherit' });
execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
const port = Number(process.env['PORT'] ?? 5173);
const server = await serveStatic('dist', port);
console.log(`multicam demo: ${server.origin}/  settings: ${server.origin}/demo/settings.html  (Ctrl-C to stop)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // An open browser keeps connections alive; close() alone would wait for them.
    server.server.closeAllConnections();
    void server.close().then(() => process.exit(0));
  });
}
