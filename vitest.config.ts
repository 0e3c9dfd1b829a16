import { defineConfig } from 'vitest/config';

// Tests mirror the layers: unit (pure logic, fast), integration (real processes: bwrap, pty, onnxruntime,
// sockets), e2e (the built app in Debian Chromium). Forks, not threads: node-pty is not thread-safe.
export default defineConfig({
  test: {
    pool: 'forks',
    // Every skip is listed with its reason after the run; under CI a skip for a program bootstrap installs fails it.
    reporters: ['default', './test/helpers/skip-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 15_000 } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
