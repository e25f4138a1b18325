#!/usr/bin/env node
// The multicam command line. Installed from npm it runs the built `init` command
// (dist/node/cli/init.js: no TypeScript, no dev dependencies). In a checkout of the repository
// it runs the TypeScript sources through tsx (a devDependency): `edit` and `init` alike.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const args = process.argv.slice(2);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli/main.ts');
  process.exitCode = await main(args);
} else if (args[0] === 'init') {
  const { runInit } = await import('../dist/node/cli/init.js');
  process.exitCode = runInit(args.slice(1));
} else {
  console.log(
    'usage: multicam init <publicDir> [--ffmpeg]\n' +
      "Copies sw.js, wasm/ and models/ into an app's public folder (with --ffmpeg, the app's own GPL ffmpeg core).\n" +
      '`multicam edit` runs from a checkout of the repository (it builds the demo app).',
  );
  process.exitCode = args.length === 0 || args[0] === '--help' || args[0] === 'help' ? 0 : 2;
}
