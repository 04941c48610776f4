/**
 * A gateway with `store: redis` whose Redis cannot be reached (a mistyped host or port, a Redis that is
 * down) says so in its log: one warning per store within the first moments, naming the store and where it
 * connects (host:port, never the URL's credentials) and the error, and not one per reconnect; a failing
 * `/ready` says why once, not once per probe.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CLOSED_PORT } from '../../support/free-port.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { waitUntil } from '../../support/wait-until.js';

const WARN = 40;
const INFO = 30;
/** The stores a gateway with `store: redis` and the default config opens a connection for. */
const STORES = ['task-registry', 'task-aliases', 'conversation-languages', 'context-lanes'];

type Line = ReturnType<TestGateway['log']>[number];
const redisWarnings = (log: Line[]): Line[] => log.filter((line) => line.level === WARN && typeof line.store === 'string');

async function unreachableGateway(redisUrl: string): Promise<{ log: Line[]; ready: number[] }> {
  const gateway = await startTestGateway({ store: 'redis', 'redis-url': redisUrl, 'redis-prefix': `redis-unreachable-${process.pid}:` });
  const ready: number[] = [];
  try {
    await waitUntil(async () => redisWarnings(gateway.log()).length >= STORES.length);
    // ioredis reconnects every few hundred ms at first: each failure is counted, not logged.
    await sleep(2_000);
    for (let probe = 0; probe < 3; probe++) ready.push((await fetch(`${gateway.url}/ready`)).status);
    return { log: gateway.log(), ready };
  } finally {
    await gateway.close();
  }
}

describe('a gateway whose Redis cannot be reached', () => {
  it('a port nothing listens on: one warning per store naming it and 127.0.0.1:<port>, never the password; /ready says why once', async () => {
    const port = CLOSED_PORT;
    const password = 'unreachable-redis-password-4d1e';
    const { log, ready } = await unreachableGateway(`redis://operator:${password}@127.0.0.1:${port}/0`);

    const warnings = redisWarnings(log);
    expect(warnings.map((line) => line.store).sort()).toEqual([...STORES].sort());
    for (const line of warnings) {
      expect(line).toMatchObject({ redis: `127.0.0.1:${port}`, code: 'ECONNREFUSED' });
      expect(line.msg).toContain(`${line.store as string} store failed (127.0.0.1:${port}): connect ECONNREFUSED`);
    }
    expect(ready).toEqual([503, 503, 503]);
    const readyLines = log.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('/ready'));
    expect(readyLines).toHaveLength(1);
    expect(readyLines[0]).toMatchObject({ level: WARN, storeReachable: false, upstreamReachable: true });
    // A few lines over the seconds of reconnects: start-up, the warnings above, the failing /ready.
    expect(log.filter((line) => line.level >= WARN).length).toBeLessThanOrEqual(STORES.length + 2);
    expect(log.filter((line) => line.level === INFO && typeof line.store === 'string')).toEqual([]);
    expect(JSON.stringify(log)).not.toContain(password);
  });

  it('a host that does not resolve: the warnings name it', async () => {
    const password = 'unresolved-redis-password-8a2c';
    const { log } = await unreachableGateway(`redis://:${password}@no-such-redis-host.invalid:6390`);
    const warnings = redisWarnings(log);
    expect(warnings.map((line) => line.store).sort()).toEqual([...STORES].sort());
    for (const line of warnings) {
      expect(line.redis).toBe('no-such-redis-host.invalid:6390');
      expect(line.error).toMatch(/no-such-redis-host\.invalid/);
    }
    expect(JSON.stringify(log)).not.toContain(password);
  });
});
