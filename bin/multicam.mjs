#!/usr/bin/env node
// The multicam command line. It runs the TypeScript sources through tsx (a devDependency):
// fine inside this repository. The published package's bin is dist/node/cli/bin.js (src/cli/bin.ts: `init` only).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
