/**
 * Tenants through the gateway core (gateway-harness.ts): a task belongs to the tenant it was created
 * under. Named under another tenant it is not found, without asking the agent; listed under its own only;
 * and every call the core makes to the agent on its own about it names its tenant. A context is its
 * caller's in the tenant it was opened under: a message into it under another is refused as another
 * caller's context is.
 */
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { A2AError, type Task } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { Feed, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { rejection } from '../support/rejection.js';
import { ALICE, setup } from './gateway-harness.js';

const working = (id: string): Task => ({ id, contextId: 'C', status: { state: 'TASK_STATE_WORKING' } });
/** A request's tenant field: none for undefined. */
const tenantOf = (tenant: string | undefined) => (tenant === undefined ? {} : { tenant });

describe('gateway: per-tenant scoping', () => {
  it('hides a task from every other tenant of its own caller, without asking the agent', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const tenants: Array<string | undefined> = [];
    const upstream = stubUpstream({
      sendStreamingMessage: () => feed.stream(),
      getTask: async (request) => {
        tenants.push(request.tenant);
        return { ...working('T'), status: { state: 'TASK_STATE_INPUT_REQUIRED' } };
      },
    });
    const { gateway } = setup(upstream);
    await collect(gateway.sendStreamingMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }) }, ALICE));
    const before = upstream.calls.length;

    for (const tenant of [{ tenant: 'other' }, { tenant: '' }, {}]) {
      const notFound = [
        gateway.getTask({ id: 'T', ...tenant }, ALICE),
        gateway.cancelTask({ id: 'T', ...tenant }, ALICE),
        gateway.sendMessage({ ...tenant, message: userMessage({ taskId: 'T' }) }, ALICE),
        gateway
          .sendStreamingMessage({ ...tenant, message: userMessage({ taskId: 'T' }) }, ALICE)
          [Symbol.asyncIterator]()
          .next(),
        gateway
          .subscribeToTask({ id: 'T', ...tenant }, ALICE)
          [Symbol.asyncIterator]()
          .next(),
        gateway.createTaskPushNotificationConfig({ taskId: 'T', url: 'https://example.com/hook', ...tenant }, ALICE),
        gateway.getTaskPushNotificationConfig({ taskId: 'T', id: 'p', ...tenant }, ALICE),
        gateway.listTaskPushNotificationConfigs({ taskId: 'T', ...tenant }, ALICE),
        gateway.deleteTaskPushNotificationConfig({ taskId: 'T', id: 'p', ...tenant }, ALICE),
      ];
      for (const attempt of notFound) expect(await rejection(attempt)).toMatchObject({ code: -32001, message: 'Task T not found' });
      expect((await gateway.listTasks(tenant, ALICE)).tasks).toEqual([]);
    }
    expect(upstream.calls.length).toBe(before);
    expect((await gateway.listTasks({ tenant: 'acme' }, ALICE)).tasks.map((task) => task.id)).toEqual(['T']);
    await expect(gateway.getTask({ id: 'T', tenant: 'acme' }, ALICE)).resolves.toMatchObject({ id: 'T' });
    expect(tenants).toEqual(['acme']);
  });

  it('is -32006 when the agent answers a call with a task of another tenant, which keeps its record', async () => {
    const upstream = stubUpstream({ sendMessage: async () => ({ task: working('T') }) });
    const { gateway, registry } = setup(upstream);
    await gateway.sendMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }) }, ALICE);
    const mixedUp = await rejection(gateway.sendMessage({ tenant: 'other', message: userMessage({ contextId: 'D' }) }, ALICE));
    expect(mixedUp).toMatchObject({ code: -32006, message: "The upstream agent answered with another caller's task" });
    expect(await registry.scopeOf('T')).toEqual({ owner: ALICE.principal, tenant: 'acme' });
  });
});

describe("gateway: a context is its caller's in the tenant it was opened under", () => {
  for (const [first, second] of [
    ['acme', 'other'],
    ['acme', undefined],
    ['acme', ''],
    [undefined, 'acme'],
  ] as const) {
    it(`refuses a message under tenant ${second ?? '(none)'} into a context opened under ${first ?? '(none)'}, without asking the agent`, async () => {
      let turns = 0;
      const upstream = stubUpstream({
        sendMessage: async () => ({ task: { ...working(`T${++turns}`), status: { state: 'TASK_STATE_COMPLETED' } } }),
      });
      const { gateway } = setup(upstream);
      await gateway.sendMessage({ ...tenantOf(first), message: userMessage({ contextId: 'C' }) }, ALICE);
      const before = upstream.calls.length;
      for (const attempt of [
        gateway.sendMessage({ ...tenantOf(second), message: userMessage({ contextId: 'C' }) }, ALICE),
        gateway
          .sendStreamingMessage({ ...tenantOf(second), message: userMessage({ contextId: 'C' }) }, ALICE)
          [Symbol.asyncIterator]()
          .next(),
      ]) {
        const refused = await rejection(attempt);
        expect([refused.code, refused.message]).toEqual([-32602, 'Context C is not available; start a new context']);
      }
      expect(upstream.calls.length).toBe(before);
      // Its own tenant goes on there.
      await expect(gateway.sendMessage({ ...tenantOf(first), message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({
        task: { id: 'T2' },
      });
    });
  }
});

describe('gateway: one turn per context', () => {
  // The default tenant named or not, or one tenant: a turn left running keeps the context busy.
  for (const [first, second] of [
    ['acme', 'acme'],
    [undefined, ''],
    ['', undefined],
  ] as const) {
    it(`keeps a context busy under tenant ${second ?? '(none)'} while a turn left running under ${first ?? '(none)'} runs`, async () => {
      let state: Task['status']['state'] = 'TASK_STATE_WORKING';
      const asked: Array<string | undefined> = [];
      let turns = 0;
      const upstream = stubUpstream({
        sendMessage: async () => ({ task: working(`T${++turns}`) }),
        getTask: async ({ id, tenant }) => {
          asked.push(tenant);
          return { ...working(id), status: { state } };
        },
      });
      const { gateway } = setup(upstream);
      await gateway.sendMessage({ ...tenantOf(first), message: userMessage({ contextId: 'C' }), configuration: { returnImmediately: true } }, ALICE);
      const busy = await rejection(gateway.sendMessage({ ...tenantOf(second), message: userMessage({ contextId: 'C' }) }, ALICE));
      expect([busy.code, busy.message]).toEqual([-32602, 'Context C already has a turn in progress; retry when it has finished']);
      // Asked in the running task's own tenant (the default one is named by none), where an agent that keeps tasks per tenant knows it.
      expect(asked).toEqual([first || undefined]);
      expect(turns).toBe(1);
      state = 'TASK_STATE_INPUT_REQUIRED';
      await expect(gateway.sendMessage({ ...tenantOf(second), message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({
        task: { id: 'T2' },
      });
      expect(asked).toEqual([first || undefined, first || undefined]);
    });
  }
});

describe('gateway: a task the agent does not know, in its tenant', () => {
  /** An agent that keeps not knowing every task, noting the tenant each call named. */
  function forgetfulGateway() {
    const named: Array<[string, string | undefined]> = [];
    const notFound = (id: string) => A2AError.taskNotFound(id);
    const upstream = stubUpstream({
      sendMessage: async () => ({ task: working('T') }),
      getTask: async ({ id, tenant }) => {
        named.push(['getTask', tenant]);
        throw notFound(id);
      },
      cancelTask: async ({ id, tenant }) => {
        named.push(['cancelTask', tenant]);
        throw notFound(id);
      },
      // eslint-disable-next-line require-yield
      subscribeToTask: async function* ({ id, tenant }) {
        named.push(['subscribeToTask', tenant]);
        throw notFound(id);
      },
    });
    const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
    const gateway = createGateway(upstream, { registry, upstreamName: 'up', lostAfterMs: 150 });
    return { gateway, named };
  }

  it("asks it in the task's tenant while a cancel waits, and cancels the task once lost", async () => {
    const { gateway, named } = forgetfulGateway();
    await gateway.sendMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }) }, ALICE);
    const canceled = await gateway.cancelTask({ id: 'T', tenant: 'acme' }, ALICE);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(named.length).toBeGreaterThan(2);
    expect(named.filter(([, tenant]) => tenant !== 'acme')).toEqual([]);
  });

  it("follows a subscription from the record, asking in the task's tenant until it is lost", async () => {
    const { gateway, named } = forgetfulGateway();
    await gateway.sendMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }) }, ALICE);
    const events = await collect(gateway.subscribeToTask({ id: 'T', tenant: 'acme' }, ALICE));
    expect(events.at(-1)).toMatchObject({ statusUpdate: { taskId: 'T', status: { state: 'TASK_STATE_FAILED' } } });
    expect(named.map(([method]) => method)).toContain('subscribeToTask');
    expect(named.filter(([, tenant]) => tenant !== 'acme')).toEqual([]);
  });
});
