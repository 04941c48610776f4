import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/core/gateway.js';
import { createLostTasks } from '../../src/core/lost-tasks.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { A2AError, eventTaskState, type StreamResponse, type Task, type TaskState } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { ctxOf, finishedTask, statusFrame, stubUpstream, userMessage } from '../support/gateway-stubs.js';

describe('a task the agent does not know', () => {
  it('is lost once the agent has kept saying so for the window, and not before; an answer in between starts it again', () => {
    let now = 1_000;
    const lost = createLostTasks(5_000, () => now);
    expect(lost.notFound('t')).toBe(false);
    now += 4_999;
    expect(lost.notFound('t')).toBe(false);
    now += 1;
    expect(lost.notFound('t')).toBe(true);
    lost.found('t');
    expect(lost.notFound('t')).toBe(false);
    expect(lost.notFound('other')).toBe(false);
  });

  it('with a window of 0, at the first not-found', () => {
    expect(createLostTasks(0).notFound('t')).toBe(true);
  });
});

describe('a subscription to a recorded task the agent blinked on', () => {
  const alice = ctxOf('basic:alice');

  /** A gateway over an agent whose GetTask answers not found `missing` more times, then `known`. */
  async function blinkingAgent(known: () => Task) {
    const working = finishedTask('t-1', 'c-1', 'TASK_STATE_WORKING');
    const agent = { missing: 0, subscriptions: 0 };
    const upstream = stubUpstream({
      sendMessage: async () => ({ task: working }),
      getTask: async () => {
        if (agent.missing-- > 0) throw A2AError.taskNotFound('t-1');
        return known();
      },
      async *subscribeToTask(): AsyncGenerator<StreamResponse> {
        if (++agent.subscriptions === 1) throw A2AError.taskNotFound('t-1');
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_COMPLETED', 'done');
      },
    });
    const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
    const gateway = createGateway(upstream, { registry, upstreamName: 'up', lostAfterMs: 60_000 });
    await gateway.sendMessage({ message: userMessage({ contextId: 'c-1' }) }, alice);
    // Not found before the subscription (subscribable asks), and when asked whether it forgot.
    agent.missing = 2;
    const events = await collect(gateway.subscribeToTask({ id: 't-1' }, alice));
    const outline = events.map((event) => `${Object.keys(event)[0]}:${eventTaskState(event)}`);
    return { outline, recorded: await registry.get('t-1', alice.principal), agent };
  }

  it('is followed from the record while the agent does not know it, then relays the agent once it knows it again', async () => {
    const { outline, recorded } = await blinkingAgent(() => finishedTask('t-1', 'c-1', 'TASK_STATE_WORKING'));
    expect(outline).toEqual(['task:TASK_STATE_WORKING', 'task:TASK_STATE_WORKING', 'statusUpdate:TASK_STATE_COMPLETED']);
    expect(recorded?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('ends with the status the agent knows it in again, when it stopped running meanwhile, without subscribing again', async () => {
    const { outline, recorded, agent } = await blinkingAgent(() => finishedTask('t-1', 'c-1', 'TASK_STATE_COMPLETED'));
    expect(outline).toEqual(['task:TASK_STATE_WORKING', 'statusUpdate:TASK_STATE_COMPLETED']);
    expect(recorded?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.subscriptions).toBe(1);
  });
});

describe('CancelTask of a recorded unfinished task the agent does not know', () => {
  const alice = ctxOf('basic:alice');
  const progress = { messageId: 'm-progress', role: 'ROLE_AGENT' as const, taskId: 't-1', contextId: 'c-1', parts: [{ text: 'working on it' }] };

  /**
   * A gateway over an agent that runs task t-1 but does not know it while `agent.knows` is false (GetTask and
   * CancelTask answer TaskNotFound); once it knows it, its CancelTask answers `agent.cancel()`.
   */
  async function forgetfulAgent(lostAfterMs: number) {
    const agent = {
      knows: false,
      cancels: 0,
      state: 'TASK_STATE_WORKING' as TaskState,
      cancel(): Task {
        agent.state = 'TASK_STATE_CANCELED';
        return finishedTask('t-1', 'c-1', agent.state);
      },
    };
    const upstream = stubUpstream({
      sendMessage: async () => ({
        task: { ...finishedTask('t-1', 'c-1', 'TASK_STATE_WORKING'), status: { state: 'TASK_STATE_WORKING', message: progress } },
      }),
      getTask: async () => {
        if (!agent.knows) throw A2AError.taskNotFound('t-1');
        return finishedTask('t-1', 'c-1', agent.state);
      },
      cancelTask: async () => {
        agent.cancels++;
        if (!agent.knows) throw A2AError.taskNotFound('t-1');
        return agent.cancel();
      },
    });
    const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
    const gateway = createGateway(upstream, { registry, upstreamName: 'up', lostAfterMs });
    agent.knows = true;
    await gateway.sendMessage({ message: userMessage({ contextId: 'c-1' }) }, alice);
    agent.knows = false;
    const recordedState = async () => (await registry.get('t-1', alice.principal))?.status.state;
    return { gateway, registry, agent, recordedState };
  }

  it('is not recorded canceled on a blink: the agent is asked to cancel again once it knows the task, and its answer relayed', async () => {
    const { gateway, agent, recordedState } = await forgetfulAgent(60_000);
    setTimeout(() => (agent.knows = true), 200);
    const canceled = await gateway.cancelTask({ id: 't-1' }, alice);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // The agent itself canceled it: nothing runs it on.
    expect([agent.cancels, agent.state]).toEqual([2, 'TASK_STATE_CANCELED']);
    expect(await recordedState()).toBe('TASK_STATE_CANCELED');
  });

  it('is never told canceled when the agent, knowing the task again, does not cancel it (it finished meanwhile)', async () => {
    const { gateway, agent, recordedState } = await forgetfulAgent(60_000);
    agent.cancel = () => {
      throw A2AError.taskNotCancelable('t-1');
    };
    setTimeout(() => {
      agent.knows = true;
      agent.state = 'TASK_STATE_COMPLETED';
    }, 200);
    await expect(gateway.cancelTask({ id: 't-1' }, alice)).rejects.toMatchObject({ code: -32002 });
    expect(await recordedState()).toBe('TASK_STATE_WORKING');
  });

  it('is recorded canceled only once the agent has kept not knowing it for lost-after-ms; GetTask answers it as recorded until then', async () => {
    const { gateway, registry, agent, recordedState } = await forgetfulAgent(400);
    const started = Date.now();
    let settled = false;
    const cancel = gateway.cancelTask({ id: 't-1' }, alice).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(settled).toBe(false);
    expect(await recordedState()).toBe('TASK_STATE_WORKING');
    expect((await gateway.getTask({ id: 't-1' }, alice)).status.state).toBe('TASK_STATE_WORKING');
    const canceled = await cancel;
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(agent.cancels).toBeGreaterThan(1);
    const recorded = await registry.get('t-1', alice.principal);
    expect(recorded?.status.state).toBe('TASK_STATE_CANCELED');
    // Its last status message moves into the history, as a status change does.
    expect(recorded?.history?.map((message) => message.messageId)).toContain('m-progress');
    await expect(gateway.cancelTask({ id: 't-1' }, alice)).rejects.toMatchObject({ code: -32002 });
  });

  it('is canceled, not failed and refused, when another call (a GetTask) sees the task lost while the cancel waits', async () => {
    const { gateway, recordedState } = await forgetfulAgent(1_500);
    const cancel = gateway.cancelTask({ id: 't-1' }, alice).then(
      (task) => task.status.state,
      (error: A2AError) => error.code,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect((await gateway.getTask({ id: 't-1' }, alice)).status.state).toBe('TASK_STATE_CANCELED');
    expect(await cancel).toBe('TASK_STATE_CANCELED');
    expect(await recordedState()).toBe('TASK_STATE_CANCELED');
    // Once no cancel waits on it, a task lost the same way is failed.
    await expect(gateway.cancelTask({ id: 't-1' }, alice)).rejects.toMatchObject({ code: -32002 });
  });

  it('with a window of 0, is recorded canceled at the first not-found, not failed and refused', async () => {
    const { gateway, recordedState } = await forgetfulAgent(0);
    expect((await gateway.cancelTask({ id: 't-1' }, alice)).status.state).toBe('TASK_STATE_CANCELED');
    expect(await recordedState()).toBe('TASK_STATE_CANCELED');
  });

  it('ends with the shutdown that cuts it short, the task left as recorded', async () => {
    const { gateway, recordedState } = await forgetfulAgent(60_000);
    const shutdown = new AbortController();
    setTimeout(() => shutdown.abort(A2AError.internal('The gateway is shutting down')), 100);
    await expect(gateway.cancelTask({ id: 't-1' }, { ...alice, signal: shutdown.signal })).rejects.toMatchObject({
      code: -32603,
      message: 'The gateway is shutting down',
    });
    expect(await recordedState()).toBe('TASK_STATE_WORKING');
  });
});

describe('a -32001 the agent answers for a task it knows ("not active") is its answer, not a lost task', () => {
  const alice = ctxOf('basic:alice');
  const notActive = () => A2AError.taskNotFound('t-1', 'Task t-1 is not active');

  async function gatewayOver(state: 'TASK_STATE_WORKING' | 'TASK_STATE_INPUT_REQUIRED') {
    const task = finishedTask('t-1', 'c-1', state);
    const upstream = stubUpstream({
      sendMessage: async () => ({ task }),
      getTask: async () => task,
      cancelTask: async () => {
        throw notActive();
      },
      // eslint-disable-next-line require-yield
      async *subscribeToTask(): AsyncGenerator<StreamResponse> {
        throw notActive();
      },
    });
    const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
    const gateway = createGateway(upstream, { registry, upstreamName: 'up', lostAfterMs: 0 });
    await gateway.sendMessage({ message: userMessage({ contextId: 'c-1' }) }, alice);
    return { gateway, registry };
  }

  it('SubscribeToTask of a running task fails at once, nothing streamed', async () => {
    const { gateway, registry } = await gatewayOver('TASK_STATE_WORKING');
    const events: StreamResponse[] = [];
    const failure = await (async () => {
      for await (const event of gateway.subscribeToTask({ id: 't-1' }, alice)) events.push(event);
    })().catch((error: unknown) => error);
    expect(events).toEqual([]);
    expect(failure).toMatchObject({ code: -32001, message: 'Task t-1 is not active' });
    expect((await registry.get('t-1', alice.principal))?.status.state).toBe('TASK_STATE_WORKING');
  });

  it('SubscribeToTask of a task waiting for input is its Task alone: the agent, which would refuse it, is not asked', async () => {
    const { gateway, registry } = await gatewayOver('TASK_STATE_INPUT_REQUIRED');
    const events: StreamResponse[] = [];
    for await (const event of gateway.subscribeToTask({ id: 't-1' }, alice)) events.push(event);
    expect(events).toEqual([
      { task: expect.objectContaining({ id: 't-1', status: expect.objectContaining({ state: 'TASK_STATE_INPUT_REQUIRED' }) }) },
    ]);
    expect((await registry.get('t-1', alice.principal))?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('CancelTask of a running task is relayed as the agent answered, the task left as it is', async () => {
    const { gateway, registry } = await gatewayOver('TASK_STATE_WORKING');
    await expect(gateway.cancelTask({ id: 't-1' }, alice)).rejects.toMatchObject({ code: -32001, message: 'Task t-1 is not active' });
    expect((await registry.get('t-1', alice.principal))?.status.state).toBe('TASK_STATE_WORKING');
  });
});
