import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/services.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers and subprocesses; two workers match the two cores here.
    maxWorkers: 2,
  },
});
