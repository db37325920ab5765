import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn real executors and sandboxes; two cores here, so keep concurrency modest.
    maxWorkers: 2,
    // The JSON report lets CI print a plain "N passed, N failed" closing line.
    reporters: ['default', 'json'],
    outputFile: { json: 'dist/test-results.json' },
  },
});
