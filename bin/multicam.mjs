#!/usr/bin/env node
// The multicam command line. It runs the TypeScript sources through tsx (a devDependency):
// fine inside this repository; a published package would ship compiled JavaScript instead.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
