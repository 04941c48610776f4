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
});
