import { defineConfig } from 'vitest/config';

// Real-CLI tests spawn processes and wait on real timers: generous timeouts, few workers (2 cores).
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // One temp root per run, removed at the end: the suite leaves nothing in /tmp.
    globalSetup: ['tests/support/temp-root.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
