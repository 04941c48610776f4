import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { DEFAULT_RETRY_POLICY, dispose, retryDelayMs } from '../../src/push/queue/retry-policy.js';
import type { PushJob } from '../../src/push/queue/types.js';

const job = { jobId: 'j', taskId: 't', configId: 'c', url: 'http://receiver.example/hook', attempt: 0 } as unknown as PushJob;

describe('how long a notification is retried by default', () => {
  it('outlasts a receiver down for a few minutes (a restart, a deploy), then dead-letters', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: defaultConfig()['push-max-attempts'] };
    const noJitter = (): number => 0.5;
    let current = job;
    let waited = 0;
    for (;;) {
      const next = dispose(current, { outcome: 'retry', status: 503 }, policy, 0);
      if (next.kind !== 'retry') {
        expect(next.kind).toBe('dead');
        break;
      }
      current = next.job;
      waited += retryDelayMs(policy, current.attempt, noJitter);
    }
    // 1 + 2 + 4 + ... + 32 s, then 60 s three times: about four minutes; 5 attempts gave up after 15 s.
    expect(waited).toBe(243_000);
    expect(current.attempt).toBe(9);
  });
});
