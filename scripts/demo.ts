/**
 * `npm run demo`: builds the app and serves it on 127.0.0.1 with COOP/COEP headers.
 * PORT picks the port (default 5173).
 */
import { execFileSync } from 'node:child_process';
import { serveStatic } from '../tools/serve.ts';

execFileSync('node', ['scripts/copy-assets.mjs'], { stdio: 'inherit' });
execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
const port = Number(process.env['PORT'] ?? 5173);
const server = await serveStatic('dist', port);
console.log(`multicam demo: ${server.origin}/  (Ctrl-C to stop)`);
