import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The reliability tests print their tallies; this reporter adds them up in one line.
    reporters: ['default', './test/reliability/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/node/**/*.test.ts', 'test/contract/**/*.node.test.ts', 'test/reliability/**/*.node.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'browser',
          // Node-side tests that drive Debian's Chromium through tools/chromium.ts.
          include: [
            'test/browser/**/*.test.ts',
            'test/contract/**/*.browser.test.ts',
            'test/reliability/**/*.browser.test.ts',
          ],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
