/**
 * A blocking SendMessage whose turn outlasts `upstream.headers-timeout-ms` but not `upstream.request-timeout-ms`
 * (the whole-call bound of blocking calls) succeeds: the official a2a-js 1.x client → the gateway → a REAL agent
 * (a2a-js 0.2.5, a2a-js 1.x over JSON-RPC, HTTP+JSON and gRPC) that answers a blocking call only at the turn's
 * end, headers included; so does the 0.2.5 facade's message/send relayed to the 0.2.5 agent. Such calls were cut
 * at the headers timeout (60 s by default) with "Upstream agent timed out", the caller never learning the task
 * the agent went on with. Only a send lifts the headers bound: GetTask and CancelTask to an agent that froze still
 * end at headers-timeout-ms (an agent answers them at once), not after the whole-call bound; so do the relayed
 * 0.2.5 tasks/get and tasks/cancel. Streams keep it too (test/e2e/grpc/upstream-faults.test.ts,
 * test/e2e/hardening/upstream-faults.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState as V1State, type AgentCard as V1Card } from 'a2a-sdk-1';
import {
  InMemoryTaskStore as V1TaskStore,
  type AgentExecutor as V1Executor,
  type ExecutionEventBus as V1Bus,
  type RequestContext as V1Context,
} from 'a2a-sdk-1/server';
import { InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-025/server';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { saidStatus, startSdkV025Server, type RunningSdkV025Server } from '../../support/sdk-v025-server.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { openingTask, serveSdkAgent } from '../../support/sdk-v1-server.js';
import { statusEvent, testAgentCard } from '../../support/sdk-v1-agent-kit.js';
import { rpc, userMessage } from '../../support/facade.js';
import { connectBinding, connectClient } from './sdk1-client.js';

/** undici arms its headers timer on ~0.5 s ticks: a 300 ms bound fires within about a second, well before the turn ends. */
const HEADERS_TIMEOUT_MS = 300;
const TURN_MS = 2_000;
const REQUEST_TIMEOUT_MS = 30_000;
const UPSTREAM = { 'headers-timeout-ms': HEADERS_TIMEOUT_MS, 'request-timeout-ms': REQUEST_TIMEOUT_MS };
/** Well past the headers bound (with undici's ticks), far short of the whole-call bound. */
const GIVEN_UP_WITHIN_MS = 5_000;
const DONE = 'Slept well.';
/** What the tests of frozen reads send: they need a task of the agent's, not a long turn, so the agent answers it at once. */
const QUICK = 'no need to wait';
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

/** a2a-js 0.2.5: Task, working, then after TURN_MS (none for QUICK) completed "Slept well.". */
class SlowV025Executor implements AgentExecutor {
  execute = async ({ taskId, contextId, userMessage: said }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const status = (state: 'working' | 'completed', final: boolean) => bus.publish(saidStatus({ taskId, contextId }, state, DONE, final));
    bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [said] });
    status('working', false);
    const text = said.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    await sleep(text === QUICK ? 0 : TURN_MS);
    status('completed', true);
    bus.finished();
  };
  cancelTask = async (): Promise<void> => {};
}

/** a2a-js 1.x: the same turn (QUICK too). */
class SlowV1Executor implements V1Executor {
  execute = async ({ taskId, contextId, userMessage: said }: V1Context, bus: V1Bus): Promise<void> => {
    bus.publish(openingTask(taskId, contextId, said));
    bus.publish(statusEvent(taskId, contextId, V1State.TASK_STATE_WORKING));
    await sleep(textOf(said) === QUICK ? 0 : TURN_MS);
    bus.publish(statusEvent(taskId, contextId, V1State.TASK_STATE_COMPLETED, DONE));
    bus.finished();
  };
  cancelTask = async (): Promise<void> => {};
}

/** An a2a-js 1.x task store whose reads, once frozen, never answer: GetTask and CancelTask read the task first. */
class FreezableV1Store extends V1TaskStore {
  frozen = false;
  override load(...args: Parameters<V1TaskStore['load']>): ReturnType<V1TaskStore['load']> {
    return this.frozen ? new Promise(() => undefined) : super.load(...args);
  }
}

/** The same for a2a-js 0.2.5 (tasks/get and tasks/cancel read the task first). */
class FreezableV025Store extends InMemoryTaskStore {
  frozen = false;
  override load(...args: Parameters<InMemoryTaskStore['load']>): ReturnType<InMemoryTaskStore['load']> {
    return this.frozen ? new Promise(() => undefined) : super.load(...args);
  }
}

/** How a call ended within GIVEN_UP_WITHIN_MS: its answer, its error's text, or still waiting. */
async function endingOf(call: Promise<unknown>): Promise<string> {
  const waiting = sleep(GIVEN_UP_WITHIN_MS).then(() => `still waiting after ${GIVEN_UP_WITHIN_MS} ms`);
  return Promise.race([
    call.then(
      () => 'answered',
      (error: Error) => `failed: ${error.message}`,
    ),
    waiting,
  ]);
}

/** What the official client's GetTask and CancelTask of `taskId` end with while the agent's reads are frozen. */
async function readsOfFrozenAgent(client: Client, taskId: string, store: { frozen: boolean }): Promise<Record<string, string>> {
  store.frozen = true;
  try {
    const [getTask, cancelTask] = await Promise.all([
      endingOf(client.getTask({ tenant: '', id: taskId, historyLength: undefined })),
      endingOf(client.cancelTask({ tenant: '', id: taskId, metadata: undefined })),
    ]);
    return { GetTask: getTask, CancelTask: cancelTask };
  } finally {
    store.frozen = false;
  }
}

const bothTimedOut = {
  GetTask: expect.stringMatching(/^failed: .*Upstream agent timed out/),
  CancelTask: expect.stringMatching(/^failed: .*Upstream agent timed out/),
};

type V1Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** A 1.x agent serving one binding only, its card listing only that one, so the gateway reaches it that way. */
async function startSlowV1Agent(binding: V1Binding, taskStore: FreezableV1Store): Promise<{ url: string; close(): Promise<void> }> {
  const spec = { name: 'slow', description: 'answers at the end of a long turn', skill: { id: 'slow', name: 'slow', description: 'sleeps' } };
  const buildCard = (baseUrl: string, grpcAddress?: string): V1Card => {
    const card = testAgentCard({ ...spec, interfaces: binding === 'GRPC' ? [] : [{ binding, version: '1.0' }] })(baseUrl);
    if (!grpcAddress) return card;
    return { ...card, supportedInterfaces: [{ url: grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }] };
  };
  const paths = { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' };
  const options = { grpcOnly: binding === 'GRPC', restOnly: binding === 'HTTP+JSON', taskStore };
  const { url, server, grpcServer } = await serveSdkAgent(buildCard, new SlowV1Executor(), paths, options);
  return {
    url,
    close: async () => {
      grpcServer?.forceShutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the official client's blocking SendMessage gives, on each binding of the gateway: state and words, or the error. */
async function sendFromEveryBinding(gatewayUrl: string): Promise<Record<string, string>> {
  const clients: Array<[string, Client]> = [];
  for (const binding of BINDINGS) clients.push([binding, await connectBinding(gatewayUrl, binding)]);
  const outcomes = await Promise.all(
    clients.map(async ([binding, client]) => {
      try {
        const answer = await client.sendMessage(sendRequest('take your time'));
        const task = 'status' in answer ? answer : undefined;
        return [binding, `${V1State[task?.status?.state ?? 0]} ${task?.status?.message ? textOf(task.status.message) : ''}`] as const;
      } catch (error) {
        return [binding, `failed: ${(error as Error).message}`] as const;
      }
    }),
  );
  return Object.fromEntries(outcomes);
}

const everyBindingCompleted = Object.fromEntries(BINDINGS.map((binding) => [binding, `TASK_STATE_COMPLETED ${DONE}`]));

// Each agent's block waits out its own turns and bounds beside the others (its agent, store and gateways are its own);
// the tests that freeze its store run one at a time, after the ones whose turns read it.
describe('a blocking SendMessage longer than upstream.headers-timeout-ms, within upstream.request-timeout-ms', () => {
  describe.concurrent('to an a2a-js 0.2.5 agent', () => {
    let agent: RunningSdkV025Server;
    let gateway: TestGateway;
    let facade: RunningGateway;
    const store = new FreezableV025Store();
    beforeAll(async () => {
      agent = await startSdkV025Server({ card: { name: 'slow', description: 'slow', skills: [] }, executor: new SlowV025Executor(), store });
      gateway = await startTestGateway({ grpc: { port: 0 }, upstream: { url: agent.url, ...UPSTREAM } });
      const config = { port: 0, host: '127.0.0.1', 'keepalive-ms': 0, upstream: { url: agent.url, ...UPSTREAM } };
      facade = await startGateway(defaultConfig({ ...config, bailian: { profile: 'a2a-0.2.5', 'api-key': 'slow-key' } }), createLogger('silent'));
    });
    afterAll(async () => {
      await gateway?.close();
      await facade?.close();
      await agent?.close();
    });

    it('answers the finished task on every binding of the official 1.x client', async ({ expect }) => {
      expect(await sendFromEveryBinding(gateway.url)).toEqual(everyBindingCompleted);
    });

    it("the 0.2.5 facade's message/send, relayed to the agent, answers the finished task", async ({ expect }) => {
      const answer = await rpc(
        `${facade.url}/`,
        'message/send',
        { message: userMessage({ text: 'take your time' }) },
        { headers: { 'x-api-key': 'slow-key' } },
      );
      expect(answer.body.error).toBeUndefined();
      expect(answer.body.result.status).toMatchObject({ state: 'completed', message: { parts: [{ kind: 'text', text: DONE }] } });
    });

    it.sequential('GetTask and CancelTask to the agent, frozen, still end at headers-timeout-ms', async ({ expect }) => {
      const client = await connectClient(gateway.url, 'JSONRPC');
      const task = asTask(await client.sendMessage(sendRequest(QUICK)));
      expect(await readsOfFrozenAgent(client, task.id, store)).toEqual(bothTimedOut);
    });

    it.sequential(
      "the 0.2.5 facade's tasks/get and tasks/cancel, relayed to the agent, frozen, still end at headers-timeout-ms",
      async ({ expect }) => {
        const headers = { 'x-api-key': 'slow-key' };
        const sent = await rpc(`${facade.url}/`, 'message/send', { message: userMessage({ text: QUICK }) }, { headers });
        const id = sent.body.result.id as string;
        store.frozen = true;
        try {
          const [got, canceled] = await Promise.all(
            ['tasks/get', 'tasks/cancel'].map((method) =>
              endingOf(
                rpc(`${facade.url}/`, method, { id }, { headers }).then((answer) =>
                  Promise.reject(new Error(answer.body.error?.message ?? 'answered')),
                ),
              ),
            ),
          );
          expect({ got, canceled }).toEqual({ got: expect.stringMatching(/timed out/), canceled: expect.stringMatching(/timed out/) });
        } finally {
          store.frozen = false;
        }
      },
    );
  });

  describe.concurrent.each<V1Binding>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('to an a2a-js 1.x agent over %s', (binding) => {
    let agent: { url: string; close(): Promise<void> };
    let gateway: TestGateway;
    const store = new FreezableV1Store();
    beforeAll(async () => {
      agent = await startSlowV1Agent(binding, store);
      gateway = await startTestGateway({ grpc: { port: 0 }, upstream: { url: agent.url, ...UPSTREAM } });
    });
    afterAll(async () => {
      await gateway?.close();
      await agent?.close();
    });

    it.sequential('answers the finished task on every binding of the official 1.x client', async ({ expect }) => {
      expect(await sendFromEveryBinding(gateway.url)).toEqual(everyBindingCompleted);
    });

    it.sequential('GetTask and CancelTask to the agent, frozen, still end at headers-timeout-ms', async ({ expect }) => {
      const client = await connectClient(gateway.url, 'JSONRPC');
      const task = asTask(await client.sendMessage(sendRequest(QUICK)));
      expect(await readsOfFrozenAgent(client, task.id, store)).toEqual(bothTimedOut);
    });
  });
});
