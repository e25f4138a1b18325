#!/usr/bin/env node
/**
 * The published package's command line (`npx multicam`): `init` only, compiled to
 * dist/node/cli/bin.js, no TypeScript and no dev dependencies at run time. `multicam edit`
 * builds the demo app, so it runs from a checkout of the repository (bin/multicam.mjs).
 *
 * @module
 */
import { INIT_USAGE, runInit } from './init.ts';

const [command, ...rest] = process.argv.slice(2);
if (command === 'init') process.exitCode = runInit(rest);
else {
  console.log(
    `${INIT_USAGE}\nCopies sw.js, wasm/ and models/ into an app's public folder (with --ffmpeg, the app's own GPL ffmpeg core).\n\`multicam edit\` runs from a checkout of the repository (it builds the demo app).`,
  );
  process.exitCode = command === undefined || command === 'help' || command === '--help' ? 0 : 2;
}
