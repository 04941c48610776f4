/**
 * a2a_bridge_redis_errors_total has its series from the start, at 0, for every store on Redis and every kind:
 * a counter without a series until its first error reads as "no data" to `rate()` and `increase()`, and as
 * absent to `absent()`, so the alert on it (deploy/prometheus/a2a-bridge.rules.yml) could not tell a Redis
 * that never failed from a gateway that is not scraped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, type Sample } from '../support/prometheus.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

const KINDS = ['connection', 'timeout', 'unavailable'];
/** Stores every call depends on, on Redis with `store: redis` (the turn slots only with `limits.*`). */
const STORES = ['task-registry', 'task-aliases', 'context-lanes'];

describe('a2a_bridge_redis_errors_total with store: redis', () => {
  let gateway: TestGateway;
  let samples: Sample[];
  beforeAll(async () => {
    await requireRedis();
    gateway = await startTestGateway({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `series-${crypto.randomUUID()}:` });
    // No call, no error: what a scrape reads of a gateway whose Redis never failed.
    samples = await scrape(gateway.url);
  });
  afterAll(() => gateway?.close());

  it('has a series for every store on Redis and every kind before any error, none of them counting one', () => {
    const series = samples.filter((sample) => sample.name === 'a2a_bridge_redis_errors_total');
    for (const component of STORES) {
      for (const kind of KINDS) {
        const found = series.find((sample) => sample.labels.component === component && sample.labels.kind === kind);
        expect(found, `${component} ${kind}`).toBeDefined();
      }
    }
    expect(gateway.log().filter((line) => typeof line.msg === 'string' && line.msg.startsWith('Redis connection of the'))).toEqual([]);
  });
});
