import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load, configError } = configFolder();

describe('a bound in milliseconds', () => {
  it('is refused past what a Node timer can wait (such a timer fires at once), naming the key and the limit', async () => {
    const error = await configError([], { A2A_BRIDGE_UPSTREAM__STREAM_IDLE_TIMEOUT_MS: '3000000000' });
    expect(error).toMatch(/upstream\.stream-idle-timeout-ms: must be at most 2147483647 ms/);
    expect(await configError([], { A2A_BRIDGE_UPSTREAM__REQUEST_TIMEOUT_MS: '2147483648' })).toMatch(/upstream\.request-timeout-ms/);
    const { config } = await load([], { A2A_BRIDGE_UPSTREAM__STREAM_IDLE_TIMEOUT_MS: '2147483647' });
    expect(config.upstream['stream-idle-timeout-ms']).toBe(2_147_483_647);
  });

  it('a retention (how long tasks and context owners are kept) is no timer: 30 days and more are taken', async () => {
    const month = String(30 * 24 * 3600_000);
    const { config } = await load([], { A2A_BRIDGE_TASKS__IDLE_TTL_MS: month, A2A_BRIDGE_TASKS__CONTEXT_OWNER_TTL_MS: month });
    expect(config.tasks['idle-ttl-ms']).toBe(30 * 24 * 3600_000);
    expect(config.tasks['context-owner-ttl-ms']).toBe(30 * 24 * 3600_000);
  });
});
