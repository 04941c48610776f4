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
import { afterAll, beforeAll, describe, it } from 'vitest';
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

// The two describes' gateways and Redis servers are their own: they run side by side.
describe.concurrent('a gateway whose Redis froze', () => {
  let redis: OwnRedis;
  let gateway: TestGateway;
  let dir: string;
  beforeAll(async () => {
    redis = await ownRedis();
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-redis-frozen-'));
    gateway = await startTestGateway({
      store: 'redis',
      'redis-url': redis.url,
      'redis-prefix': 'frozen:',
      // Long, so that what must not wait for it (a probe) is told from what does however busy the host; not the
      // 5 s a PING gets without one (READY_PING_DEFAULT_WITHIN_MS), so the warning tells which bound was used.
      'redis-command-timeout-ms': 4_000,
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

  it('/ready turns 503 on its own within a probe, the log and the metrics say why, a scrape is not held, and all comes back at the thaw', async ({
    expect,
  }) => {
    const before = parse((await timed(`${gateway.url}/metrics`)).body);
    expect(value(before, 'a2a_bridge_push_queue_depth', { queue: 'redis-streams' })).toBe(0);
    redis.freeze();
    try {
      // No call is made: only the probes and the scrapes. A PING's answer holds for 1 s, and one unanswered
      // past redis-command-timeout-ms (4 s) is overdue: a probe says 503 at most 5 s after the freeze (given up
      // at 15 s), the next ones too, and each answers at once: a probe that waited for its PING would take up
      // to the 4 s of that time-out, so half of it is the bound (a busy host can hold an answer a second or more).
      const frozenAt = Date.now();
      const probes: Array<{ status: number; ms: number; at: number }> = [];
      const notReadyFor = (ms: number) => probes.some((probe) => probe.status === 503 && Date.now() - frozenAt - probe.at >= ms);
      while (Date.now() - frozenAt < 15_000 && !notReadyFor(1_000)) {
        const { status, ms } = await timed(`${gateway.url}/ready`);
        probes.push({ status, ms, at: Date.now() - frozenAt });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const firstNotReady = probes.findIndex((probe) => probe.status === 503);
      expect(firstNotReady).toBeGreaterThanOrEqual(0);
      expect(probes.slice(firstNotReady).every((probe) => probe.status === 503)).toBe(true);
      for (const probe of probes) expect(probe.ms).toBeLessThan(2_000);

      // The queue's depth is given up on after 1 s (SCRAPE_READ_WITHIN_MS): a scrape that waited for it would
      // be held for as long as Redis stays frozen (the queue's commands have no time-out).
      const scrape = await timed(`${gateway.url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.ms).toBeLessThan(5_000);
      const samples = parse(scrape.body);
      expect(value(samples, 'a2a_bridge_redis_errors_total', { component: 'task-registry', kind: 'timeout' })).toBeGreaterThan(0);
      expect(samples.some((sample) => sample.name === 'a2a_bridge_push_queue_depth' && sample.labels.queue === 'redis-streams')).toBe(false);

      const log = gateway.log();
      const warned = log.find((line) => line.level === WARN && line.store === 'context-lanes' && line.kind === 'timeout');
      expect(warned?.msg).toMatch(/^Redis connection of the context-lanes store failed \(127\.0\.0\.1:\d+\): no answer to PING within 4000 ms$/);
    } finally {
      redis.thaw();
    }
    await waitUntil(async () => (await timed(`${gateway.url}/ready`)).status === 200, 5_000);
    const log = gateway.log();
    expect(log.some((line) => line.level === INFO && line.store === 'task-registry' && line.msg.includes('answers again'))).toBe(true);
    expect(log.some((line) => line.level === INFO && line.msg === '/ready: ready again')).toBe(true);
    expect(value(parse((await timed(`${gateway.url}/metrics`)).body), 'a2a_bridge_push_queue_depth', { queue: 'redis-streams' })).toBe(0);
  }, 40_000);
});

describe.concurrent('a gateway whose Redis is slow but answers within redis-command-timeout-ms', () => {
  let redis: OwnRedis;
  let gateway: TestGateway;
  beforeAll(async () => {
    redis = await ownRedis();
    gateway = await startTestGateway({ store: 'redis', 'redis-url': redis.url, 'redis-prefix': 'slow:', 'redis-command-timeout-ms': 6_000 });
    await waitUntil(async () => (await timed(`${gateway.url}/ready`)).status === 200, 10_000);
  });
  afterAll(async () => {
    redis?.thaw();
    await gateway?.close();
    await redis?.remove();
  });

  it('/ready stays 200 through a 3 s stall, each probe answering at once while its PING is outstanding', async ({ expect }) => {
    // Past the 1 s a PING's answer holds: the first probe of the stall sends one, and it is outstanding throughout.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    redis.freeze();
    const frozenAt = Date.now();
    const probes: Array<{ status: number; ms: number }> = [];
    try {
      while (Date.now() - frozenAt < 3_000) {
        const { status, ms } = await timed(`${gateway.url}/ready`);
        probes.push({ status, ms });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      redis.thaw();
    }
    // A probe that waited for the PING would take its 6 s time-out: one probe, then 503. Half of it is the bound.
    expect(probes.length).toBeGreaterThanOrEqual(3);
    expect(probes.map((probe) => probe.status).filter((status) => status !== 200)).toEqual([]);
    for (const probe of probes) expect(probe.ms).toBeLessThan(3_000);
    expect((await timed(`${gateway.url}/ready`)).status).toBe(200);
    expect(gateway.log().filter((line) => line.level === WARN && line.kind === 'timeout')).toEqual([]);
  }, 30_000);
});
