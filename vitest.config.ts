import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most files wait on sockets and timers, not the CPU. Vitest's default (cores - 1) runs them one at a
    // time on a 2-core machine: 459 s for the suite, against 253-260 s with two at once (measured twice,
    // all passing), which keeps `.ci/run` well inside its 10 minutes.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
