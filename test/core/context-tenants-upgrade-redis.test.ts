/**
 * A context's tenant across a rolling upgrade, on Redis: a release of before context tenants keeps a
 * context's owner (`ctx:C`) and no tenant, and renews the owner alone. A context whose tenant is not
 * recorded is its owner's under any tenant, as every context was then (not the default tenant's: its
 * owner's next message under the tenant it opened the context in would be refused), until the owner's
 * next write there records that write's tenant. This release records every context's tenant, the
 * default one too, and renews it with the owner, so neither outlives the other.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { createGateway } from '../../src/core/gateway.js';
import { sortMember } from '../../src/core/task-registry/query.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { ctxOf, finishedTask, stubUpstream, userMessage } from '../support/gateway-stubs.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';
import { waitUntil } from '../support/wait-until.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:ctx-tenants-upgrade:${randomUUID()}:`;
const ALICE = ctxOf('basic:alice');
const BOB = ctxOf('basic:bob');
const probe = new Redis(REDIS_URL, { lazyConnect: true });
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

afterAll(async () => {
  await deleteRedisKeys(RUN_PREFIX);
  await probe.quit();
});

/** A gateway of this release on `prefix`, whose agent answers each turn with a new finished task in C. */
function replica(prefix: string, ttls: { idleTtlMs?: number; contextOwnerTtlMs?: number } = {}) {
  let turns = 0;
  const upstream = stubUpstream({ sendMessage: async () => ({ task: finishedTask(`T${++turns}`, 'C', 'TASK_STATE_COMPLETED') }) });
  const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 100, ...ttls });
  const lanes = createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 10_000 });
  closers.push(
    () => registry.close(),
    () => lanes.close(),
  );
  return { gateway: createGateway(upstream, { registry, lanes, upstreamName: 'up' }), registry, upstream };
}

const fresh = (): string => `${RUN_PREFIX}${randomUUID()}:`;

/**
 * A finished task of `owner` under `tenant` in context C, as the release of before context tenants wrote
 * it: the task and its tenant's indexes, the owner's latest-task pointer, and the context's owner alone
 * (`SET ctx NX`, then renewed by the owner), no `ctxn:C`.
 */
async function writeAsBeforeContextTenants(prefix: string, owner: string, tenant: string, taskId: string): Promise<void> {
  const task = finishedTask(taskId, 'C', 'TASK_STATE_COMPLETED');
  const member = sortMember(task);
  const encoded = encodeURIComponent(owner);
  const scope = `${prefix}o:${encoded}:${tenant === '' ? '' : `t:${tenant}:`}`;
  const taskFields = ['v', '1', 'd', JSON.stringify({ task, upstream: 'up' }), 'o', owner, 'u', String(Date.now() * 1000)];
  await probe
    .multi()
    .hset(`${prefix}t:${taskId}`, ...taskFields, ...(tenant === '' ? [] : ['n', tenant]))
    .zadd(`${scope}all`, 0, member)
    .zadd(`${scope}s:${task.status.state}`, 0, member)
    .zadd(`${scope}c:C`, 0, member)
    .hset(`${scope}idx`, taskId, JSON.stringify({ m: member, s: task.status.state, k: 'C' }))
    .set(`${prefix}o:${encoded}:l:C`, taskId)
    .set(`${prefix}ctx:C`, owner, 'NX')
    .pexpire(`${prefix}ctx:C`, 60_000)
    .exec();
}

const send = (gateway: ReturnType<typeof replica>['gateway'], tenant: string | undefined, who = ALICE) =>
  gateway.sendMessage({ ...(tenant === undefined ? {} : { tenant }), message: userMessage({ contextId: 'C' }) }, who);

async function refusedInC(call: Promise<unknown>): Promise<void> {
  const refused = await rejection(call);
  expect([refused.code, refused.message]).toEqual([-32602, 'Context C is not available; start a new context']);
}

/** The context's owner and tenant keys expire together: the tenant is there for as long as the owner. */
async function expectTenantKept(prefix: string, tenant: string): Promise<void> {
  expect(await probe.get(`${prefix}ctxn:C`)).toBe(tenant);
  const [ownerTtl, tenantTtl] = await Promise.all([probe.pttl(`${prefix}ctx:C`), probe.pttl(`${prefix}ctxn:C`)]);
  expect(tenantTtl).toBeGreaterThan(0);
  expect(Math.abs(ownerTtl - tenantTtl)).toBeLessThan(50);
}

describe('redis: a context opened by a release of before context tenants', () => {
  it('goes on for its owner under the tenant it was opened in, and the turn records that tenant', async () => {
    const prefix = fresh();
    await writeAsBeforeContextTenants(prefix, ALICE.principal, 'acme', 'T0');
    const { gateway, registry, upstream } = replica(prefix);
    expect(await registry.contextScope('C')).toEqual({ owner: ALICE.principal });
    // Another caller's context still, under any tenant.
    await refusedInC(send(gateway, 'acme', BOB));
    expect(upstream.calls).toEqual([]);
    await expect(send(gateway, 'acme')).resolves.toMatchObject({ task: { id: 'T1' } });
    // The owner's turn recorded the tenant: from now on the context is the owner's in that tenant only.
    expect(await registry.contextScope('C')).toEqual({ owner: ALICE.principal, tenant: 'acme' });
    await expectTenantKept(prefix, 'acme');
    await refusedInC(send(gateway, 'globex'));
    await refusedInC(send(gateway, undefined));
    await expect(send(gateway, 'acme')).resolves.toMatchObject({ task: { id: 'T2' } });
  });

  it('records the default tenant of a context opened without one, as a value of its own', async () => {
    const prefix = fresh();
    await writeAsBeforeContextTenants(prefix, ALICE.principal, '', 'T0');
    const { gateway, registry } = replica(prefix);
    await expect(send(gateway, undefined)).resolves.toMatchObject({ task: { id: 'T1' } });
    expect(await registry.contextScope('C')).toEqual({ owner: ALICE.principal, tenant: '' });
    await expectTenantKept(prefix, '');
    await refusedInC(send(gateway, 'acme'));
  });

  it("records no tenant for another caller's write into it", async () => {
    const prefix = fresh();
    await writeAsBeforeContextTenants(prefix, ALICE.principal, 'acme', 'T0');
    const { registry } = replica(prefix);
    await registry.put(finishedTask('B1', 'C'), { owner: BOB.principal, upstream: 'up', tenant: 'acme' });
    expect(await probe.exists(`${prefix}ctxn:C`)).toBe(0);
    expect(await registry.contextScope('C')).toEqual({ owner: ALICE.principal });
  });
});

describe('redis: a context of this release renewed by a release of before', () => {
  it('goes on under its tenant once its tenant key expired before its owner, and records the tenant again', async () => {
    const prefix = fresh();
    // An owner's TTL of a second, not 300 ms: a loaded host's stall after the turn outlasted that, and the keys this
    // reads were gone before it read them.
    const { gateway, registry } = replica(prefix, { idleTtlMs: 200, contextOwnerTtlMs: 1_000 });
    await expect(send(gateway, 'acme')).resolves.toMatchObject({ task: { id: 'T1' } });
    await expectTenantKept(prefix, 'acme');
    // A replica of before takes the next turns: it renews the context's owner alone.
    await probe.pexpire(`${prefix}ctx:C`, 60_000);
    await waitUntil(async () => (await probe.exists(`${prefix}ctxn:C`)) === 0);
    expect(await registry.contextScope('C')).toEqual({ owner: ALICE.principal });
    await expect(send(gateway, 'acme')).resolves.toMatchObject({ task: { id: 'T2' } });
    await expectTenantKept(prefix, 'acme');
  });

  it('keeps the tenant, the default one too, for as long as the owner through its renewals', async () => {
    for (const tenant of ['acme', undefined]) {
      const prefix = fresh();
      // Turns 600 ms apart, past an owner's TTL of 1.2 s in all: with 400 ms and turns 250 ms apart, a loaded host's
      // stall between two turns outlasted the TTL's rest.
      const { gateway, registry } = replica(prefix, { idleTtlMs: 200, contextOwnerTtlMs: 1_200 });
      for (let turn = 1; turn <= 3; turn++) {
        await expect(send(gateway, tenant)).resolves.toMatchObject({ task: { id: `T${turn}` } });
        await expectTenantKept(prefix, tenant ?? '');
        await new Promise((resolve) => setTimeout(resolve, 600));
      }
      expect(await registry.contextScope('C')).toEqual({ owner: ALICE.principal, tenant: tenant ?? '' });
    }
  });
});
