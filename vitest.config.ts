import { defineConfig } from 'vitest/config';

/**
 * Files that need a process of their own: they replace modules or globals (`vi.mock`, `vi.stubGlobal`,
 * fake timers) or measure this process's heap, which other files' leftovers would skew.
 */
const OWN_PROCESS = [
  'test/redis/tls-clients.test.ts',
  'test/surfaces/v025/relay/passthrough-record.test.ts',
  'test/e2e/facade/passthrough.test.ts',
  'test/core/card-refresher.test.ts',
  'test/surfaces/shared/sse.test.ts',
  'test/core/task-aliases.test.ts',
  'test/core/task-registry.test.ts',
  'test/e2e/facade/let-go-after-wait.test.ts',
  'test/e2e/facade/open-stream-memory.test.ts',
  'test/e2e/hardening/leak-bad-endings.test.ts',
  // Mocks node:crypto for a Node without crypto.hash, and resets the module registry to load the digest with it.
  'test/core/message-digest.test.ts',
  // The 0.2.5 SDK client takes no fetch of its own: these stub the global one.
  'test/e2e/facade/task-get-words-language.test.ts',
  'test/e2e/facade/follow-up-held-task-sdk.test.ts',
  'test/e2e/facade/held-follow-up-lead-sdk.test.ts',
  'test/e2e/facade/blank-lead-restated-sdk.test.ts',
  'test/e2e/facade/blank-lead-heading-sdk.test.ts',
  'test/e2e/facade/explore-relay-reads.test.ts',
  'test/e2e/facade/new-task-question-sdk.test.ts',
];

/**
 * The load run: a gateway child under hundreds of clients for tens of seconds. It runs last and by itself:
 * beside the CLI's files (a dozen node processes at once) its turns waited past their 15 s bound.
 */
const ALONE = ['test/e2e/hardening/load.test.ts'];

/**
 * Memory runs: bursts of streams, or hundreds of large turns, against a gateway child whose memory they
 * measure. Kept away from the files whose timing is bound (run after them), but side by side with each
 * other: what they check is bytes and handles after full GCs, which the other's CPU does not move.
 */
const MEMORY = ['test/e2e/hardening/churn.test.ts', 'test/e2e/hardening/registry-heap.test.ts'];

/** Every file's gateways keep their files in a folder of the file's own, not the checkout's `.a2a-bridge`. */
const OWN_PERSISTENCE_DIR = './test/support/own-persistence-dir.ts';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits for state another part of the system brings about: 1 s (vitest's default) is less than a
    // loaded CI host has been seen to stall for.
    expect: { poll: { timeout: 5_000 } },
    pool: 'forks',
    // Most files wait on sockets and timers, not the CPU: with two at once the 2-core CI host sat 55 % idle
    // (vmstat over a whole run; 468 s wall, 422 s CPU). Three fill it; four saturated it beside the checks and
    // timing-bound tests failed.
    maxWorkers: 3,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // src/ bundled once for the gateway and fixture children the tests start, instead of through tsx in each (cli-build.ts).
    globalSetup: ['./test/support/cli-build.ts'],
    projects: [
      {
        // A fresh process per file spent about as long importing the gateway, the SDKs and gRPC as the
        // file's tests ran (the suite: 416 s isolated, 259 s shared, measured the same hour). These
        // files close what they open, so one process per worker runs them all.
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...OWN_PROCESS, ...ALONE, ...MEMORY],
          isolate: false,
          setupFiles: ['./test/support/shared-process-setup.ts', OWN_PERSISTENCE_DIR],
        },
      },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true, setupFiles: [OWN_PERSISTENCE_DIR] } },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, isolate: true, maxWorkers: 1, sequence: { groupOrder: 2 }, setupFiles: [OWN_PERSISTENCE_DIR] },
      },
      {
        extends: true,
        test: { name: 'memory', include: MEMORY, isolate: true, maxWorkers: 2, sequence: { groupOrder: 1 }, setupFiles: [OWN_PERSISTENCE_DIR] },
      },
    ],
  },
});
