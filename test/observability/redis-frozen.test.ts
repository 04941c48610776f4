/**
 * A gateway whose Redis froze (SIGSTOP of a redis-server of the test's own: its connections stay open and
 * nothing is answered, as behind a network that drops packets) shows it where an operator looks, with no
 * call failing first: `/ready` turns 503 once a PING went unanswered past redis-command-timeout-ms, a
 * warning names the store and says no answer came, a2a_bridge_redis_errors_total counts it as a timeout,
 * and a probe and a scrape answer at once even with the push queue on that Redis (its depth is left out
 * while it cannot be read). At the thaw `/ready` is 200 again and the log says Redis answers again. A Redis
 * that is slow but answers within redis-command-timeout-ms (a fork for BGSAVE, a long command) serves the
 * calls, and keeps `/ready` 200: a balancer must not take every replica out at once over it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { parse, value } from '../support/prometheus.js';
import { ownRedis, type OwnRedis } from '../support/redis-server.js';
import { waitUntil } from '../support/wait-until.js';

const WARN = 40;
const INFO = 30;

async function timed(url: string): Promise<{ status: number; body: string; ms: number }> {
  const started = Date.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  const body = await response.text();
  return { status: response.status, body, ms: Date.now() - started };
}

describe('a gateway whose Redis froze', () => {
  let redis: OwnRedis;
  let gateway: TestGateway;
  let dir: string;
  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-redis-frozen-'));
    gateway = await startTestGateway({
      store: 'redis',
      'redis-url': redis.url,
      'redis-prefix': 'frozen:',
      'redis-command-timeout-ms': 500,
      'push-notifications': true,
      'push-allow-private': true,
      'push-queue': 'redis-streams',
      'persistence-dir': dir,
    });
    await waitUntil(async () => (await timed(`${gateway.url}/ready`)).status === 200, 10_000);
  });
  afterAll(async () => {
    redis?.thaw();
    await gateway?.close();
    await redis?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('/ready turns 503 on its own within a probe, the log and the metrics say why, a scrape is not held, and all comes back at the thaw', async () => {
    const before = parse((await timed(`${gateway.url}/metrics`)).body);
    expect(value(before, 'a2a_bridge_push_queue_depth', { queue: 'redis-streams' })).toBe(0);
    redis.freeze();
    try {
      // No call is made: only the probes and the scrapes. A PING's answer holds for 1 s, and one unanswered
      // past redis-command-timeout-ms (500 ms) is overdue: a probe says 503 within 1.5 s of the freeze and a
      // probe's period, and each answers at once.
      const frozenAt = Date.now();
      const probes: Array<{ status: number; ms: number; at: number }> = [];
      while (Date.now() - frozenAt < 3_000) {
        const { status, ms } = await timed(`${gateway.url}/ready`);
        probes.push({ status, ms, at: Date.now() - frozenAt });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const firstNotReady = probes.findIndex((probe) => probe.status === 503);
      expect(firstNotReady).toBeGreaterThanOrEqual(0);
      expect(probes[firstNotReady]!.at).toBeLessThan(2_500);
      expect(probes.slice(firstNotReady).every((probe) => probe.status === 503)).toBe(true);
      for (const probe of probes) expect(probe.ms).toBeLessThan(100);

      const scrape = await timed(`${gateway.url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.ms).toBeLessThan(2_000);
      const samples = parse(scrape.body);
      expect(value(samples, 'a2a_bridge_redis_errors_total', { component: 'task-registry', kind: 'timeout' })).toBeGreaterThan(0);
      expect(samples.some((sample) => sample.name === 'a2a_bridge_push_queue_depth' && sample.labels.queue === 'redis-streams')).toBe(false);

      const log = gateway.log();
      const warned = log.find((line) => line.level === WARN && line.store === 'context-lanes' && line.kind === 'timeout');
      expect(warned?.msg).toMatch(/^Redis connection of the context-lanes store failed \(127\.0\.0\.1:\d+\): no answer to PING within 500 ms$/);
    } finally {
      redis.thaw();
    }
    await waitUntil(async () => (await timed(`${gateway.url}/ready`)).status === 200, 5_000);
    const log = gateway.log();
    expect(log.some((line) => line.level === INFO && line.store === 'task-registry' && line.msg.includes('answers again'))).toBe(true);
    expect(log.some((line) => line.level === INFO && line.msg === '/ready: ready again')).toBe(true);
    expect(value(parse((await timed(`${gateway.url}/metrics`)).body), 'a2a_bridge_push_queue_depth', { queue: 'redis-streams' })).toBe(0);
  });
});

describe('a gateway whose Redis is slow but answers within redis-command-timeout-ms', () => {
  let redis: OwnRedis;
  let gateway: TestGateway;
  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
    gateway = await startTestGateway({ store: 'redis', 'redis-url': redis.url, 'redis-prefix': 'slow:', 'redis-command-timeout-ms': 3_000 });
    await waitUntil(async () => (await timed(`${gateway.url}/ready`)).status === 200, 10_000);
  });
  afterAll(async () => {
    redis?.thaw();
    await gateway?.close();
    await redis?.remove();
  });

  it('/ready stays 200 through a 1.5 s stall, each probe answering at once while its PING is outstanding', async () => {
    // Past the 1 s a PING's answer holds: the first probe of the stall sends one, and it is outstanding throughout.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    redis.freeze();
    const frozenAt = Date.now();
    const probes: Array<{ status: number; ms: number }> = [];
    try {
      while (Date.now() - frozenAt < 1_500) {
        const { status, ms } = await timed(`${gateway.url}/ready`);
        probes.push({ status, ms });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      redis.thaw();
    }
    expect(probes.length).toBeGreaterThan(5);
    expect(probes.map((probe) => probe.status).filter((status) => status !== 200)).toEqual([]);
    for (const probe of probes) expect(probe.ms).toBeLessThan(100);
    expect((await timed(`${gateway.url}/ready`)).status).toBe(200);
    expect(gateway.log().filter((line) => line.level === WARN && line.kind === 'timeout')).toEqual([]);
  });
});
