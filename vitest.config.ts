import { defineConfig } from 'vitest/config';
import { patient } from './test/support/patience.ts';

// Five tiers in CI (`npm test`): Node, Chromium, Firefox, WebKitGTK (the contract suite), and the package as an app installs it. Each browser tier keeps to
// the flows a user runs (and the contract suite); parity and diagnostic checks that no user's flow runs (WebGPU on
// SwiftShader against wasm, the Node path against the browser's, a second base URL over every contract group) are the
// `deep` project, run with `npm run test:deep` and not in CI: docs/testing.md lists each and why. Evaluations (sweeps
// over seeds, DER over many files) are not tests: they live in eval/ and run with `npm run eval`, never in CI.
export default defineConfig({
  test: {
    // The reliability tests print their tallies; this reporter adds them up in one line. The tier counter
    // gives scripts/test-tier.mjs the passed/failed/skipped counts of its closing line.
    reporters: ['default', './test/reliability/summary-reporter.ts', './test/support/tier-count-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          // Node: pure algorithms, the route handler over fake-indexeddb, webhooks, fixtures, fuzzing.
          include: ['test/node/**/*.test.ts', 'test/contract/**/*.node.test.ts', 'test/reliability/**/*.node.test.ts'],
          environment: 'node',
          // Both cores: the files are independent and mostly CPU-bound.
          maxWorkers: 2,
          testTimeout: patient(30_000),
          hookTimeout: patient(60_000),
        },
      },
      {
        test: {
          name: 'browser',
          // Node-side tests that drive Debian's Chromium through src/cli/chromium.ts.
          include: [
            'test/browser/**/*.test.ts',
            'test/contract/**/*.browser.test.ts',
            'test/reliability/**/*.browser.test.ts',
          ],
          environment: 'node',
          fileParallelism: false,
          testTimeout: patient(180_000),
          hookTimeout: patient(180_000),
        },
      },
      {
        test: {
          name: 'consumer',
          // The packed tarball in a fresh Vite app (test/consumer/app), driven in Chromium.
          include: ['test/consumer/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: patient(300_000),
          hookTimeout: patient(300_000),
        },
      },
      {
        test: {
          name: 'firefox',
          // Debian's stock firefox-esr through src/cli/firefox.ts (puppeteer-core, WebDriver BiDi): the demo hands-off and
          // the contract groups of a client's flow (docs/browsers.md).
          include: ['test/firefox/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: patient(300_000),
          hookTimeout: patient(300_000),
        },
      },
      {
        test: {
          name: 'webkit',
          // Debian's WebKitGTK MiniBrowser through src/cli/webkit.ts (WebKitWebDriver under xvfb-run, classic WebDriver):
          // the contract suite through the real service worker; no job runs there (docs/browsers.md#webkitgtk).
          include: ['test/webkit/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: patient(300_000),
          hookTimeout: patient(300_000),
        },
      },
      {
        test: {
          name: 'deep',
          // Chromium parity and diagnostic checks outside CI (`npm run test:deep`; docs/testing.md#deep-tier).
          include: ['test/deep/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: patient(180_000),
          hookTimeout: patient(180_000),
        },
      },
    ],
  },
});
