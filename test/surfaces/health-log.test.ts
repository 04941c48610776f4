/** `/ready` tells the log when it turns not ready (warn, at most once per 30 s) and when it is ready again (info); each probe alone stays quiet. */
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import type { CardSource } from '../../src/core/card-source.js';
import { REDIS_WARN_EVERY_MS } from '../../src/observability/redis-errors.js';
import { mountHealth } from '../../src/surfaces/health.js';
import type { GatewayEnv } from '../../src/surfaces/shared/env.js';

function probed() {
  const told: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const record = (level: string) => (fields: Record<string, unknown>, message: string) => void told.push({ level, fields, message });
  const logger = { warn: record('warn'), info: record('info') } as unknown as Logger;
  const state = { upstream: true, store: true, time: 1_000_000, notAnswering: [] as string[] };
  const app = new Hono<GatewayEnv>();
  app.use(async (c, next) => {
    c.set('logger', logger);
    c.set('logFields', {});
    await next();
  });
  const cards = { upstreamReachable: () => state.upstream } as unknown as CardSource;
  mountHealth(
    app,
    cards,
    () => state.store,
    () => state.time,
    () => state.notAnswering,
  );
  const probe = async () => (await app.request('/ready')).status;
  return { told, state, probe };
}

describe('/ready in the log', () => {
  it('warns once when it turns not ready, naming why, and tells at info when it is ready again', async () => {
    const { told, state, probe } = probed();
    expect(await probe()).toBe(200);
    expect(told).toEqual([]);
    state.store = false;
    expect([await probe(), await probe(), await probe()]).toEqual([503, 503, 503]);
    expect(told).toEqual([
      {
        level: 'warn',
        fields: { surface: 'health', upstreamReachable: true, storeReachable: false },
        message: '/ready: not ready, the task store cannot be reached or refuses writes (see the Redis warnings)',
      },
    ]);
    state.store = true;
    expect(await probe()).toBe(200);
    expect(await probe()).toBe(200);
    expect(told.slice(1)).toEqual([{ level: 'info', fields: { surface: 'health' }, message: '/ready: ready again' }]);
  });

  it('one that flaps is told at most once per 30 s, with the turns left out counted in the next warning', async () => {
    const { told, state, probe } = probed();
    for (let flap = 0; flap < 4; flap++) {
      state.upstream = false;
      await probe();
      state.upstream = true;
      await probe();
      state.time += 1_000;
    }
    expect(told.map((line) => line.level)).toEqual(['warn', 'info']);
    state.time += REDIS_WARN_EVERY_MS;
    state.upstream = false;
    state.store = false;
    await probe();
    expect(told.at(-1)).toMatchObject({ level: 'warn', fields: { upstreamReachable: false, storeReachable: false, leftOut: 3 } });
    expect(told.at(-1)!.message).toContain('the upstream agent cannot be reached and the task store');
  });

  it('a turn to not ready held back within 30 s is told once the time has passed, if it still holds; so is a change of what is wrong', async () => {
    const { told, state, probe } = probed();
    state.store = false;
    await probe();
    state.time += 5_000;
    state.store = true;
    await probe();
    state.time += 5_000;
    state.store = false;
    for (let minute = 0; minute < 20; minute++) {
      await probe();
      state.time += 60_000;
    }
    expect(told.map((line) => line.level)).toEqual(['warn', 'info', 'warn']);
    expect(told.at(-1)).toMatchObject({ fields: { storeReachable: false, leftOut: 1 } });
    state.upstream = false;
    await probe();
    expect(told.at(-1)).toMatchObject({ level: 'warn', fields: { upstreamReachable: false, storeReachable: false } });
  });

  it('a Redis that does not answer its PING (frozen: the connections stay open) is not ready, naming the stores', async () => {
    const { told, state, probe } = probed();
    state.notAnswering = ['context-lanes', 'task-registry'];
    expect(await probe()).toBe(503);
    expect(told).toEqual([
      {
        level: 'warn',
        fields: { surface: 'health', upstreamReachable: true, storeReachable: true, redisNotAnswering: ['context-lanes', 'task-registry'] },
        message:
          '/ready: not ready, Redis does not answer (a PING unanswered for longer than redis-command-timeout-ms) for the context-lanes, task-registry stores (see the Redis warnings)',
      },
    ]);
    state.notAnswering = [];
    expect(await probe()).toBe(200);
    expect(told.at(-1)).toMatchObject({ level: 'info', message: '/ready: ready again' });
  });
});
