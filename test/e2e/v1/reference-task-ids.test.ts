/**
 * A message's `referenceTaskIds` name tasks as much as its `taskId` does, and an a2a-js agent loads each
 * referenced task in full (as the gateway's one credential, whoever asks) and hands it to the turn. So
 * the gateway checks each one as it checks the task a message continues (task-scope.ts): another caller's
 * task, one of another tenant and one the registry does not know are TaskNotFound, for SendMessage and
 * SendStreamingMessage, before anything reaches the agent; a caller's own task in its own tenant goes on.
 * Two Bearer tokens with the official a2a-js 1.x client over each binding, in front of a real a2a-js 1.x
 * agent that reports what it loaded, on the memory and the Redis store.
 */
import { randomUUID } from 'node:crypto';
import type { SendMessageRequest, StreamResponse, Task } from 'a2a-sdk-1';
import type { RequestOptions } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcTransport, wire } from '../grpc/grpc-client.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, requireRedis, EACH_STORE } from '../../support/redis.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { asTask, collect, connect, sendRequest, userMessage } from '../../support/sdk-v1-client.js';
import { reasonOf } from '../../support/rejection.js';

const TOKENS = { alice: 'reference-alice-token-0123', bob: 'reference-bob-token-0123' };
const ACME = 'acme';
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

beforeAll(requireRedis);

/** One credential's calls over one binding. */
interface Caller {
  send(request: SendMessageRequest): Promise<unknown>;
  stream(request: SendMessageRequest): AsyncIterable<StreamResponse>;
}

async function caller(gateway: TestGateway, binding: (typeof BINDINGS)[number], token: string): Promise<Caller> {
  const authorization = `Bearer ${token}`;
  const [port, options]: [PortLike, RequestOptions | undefined] =
    binding === 'GRPC'
      ? [await grpcTransport(gateway, { authorization }), wire({ authorization })]
      : [(await connect(gateway.url, binding, { token })).client, undefined];
  return { send: (request) => port.sendMessage(request, options), stream: (request) => port.sendMessageStream(request, options) };
}

type PortLike = {
  sendMessage(request: SendMessageRequest, options?: RequestOptions): Promise<unknown>;
  sendMessageStream(request: SendMessageRequest, options?: RequestOptions): AsyncIterable<StreamResponse>;
};

/** A message referring to `taskIds`, under `tenant`. */
function referring(text: string, taskIds: string[], tenant = ''): SendMessageRequest {
  return { ...sendRequest(text), tenant, message: { ...userMessage(text), referenceTaskIds: taskIds } };
}

describe.each(EACH_STORE)('referenceTaskIds ($name store)', ({ config }) => {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  let agent: RunningSdkV1Agent;
  let gateway: TestGateway;

  beforeAll(async () => {
    agent = await startSdkV1Agent();
    gateway = await startTestGateway({ ...config(prefix), upstream: { url: agent.url }, grpc: { port: 0 }, auth: { tokens: Object.values(TOKENS) } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
    await deleteRedisKeys(prefix);
  });

  describe.each(BINDINGS)('over %s', (binding) => {
    let alice: Caller;
    let bob: Caller;
    beforeAll(async () => {
      alice = await caller(gateway, binding, TOKENS.alice);
      bob = await caller(gateway, binding, TOKENS.bob);
    });

    it("another caller's task, referred to, is TaskNotFound and never reaches the agent; the caller's own goes on", async () => {
      const secret = asTask((await alice.send(sendRequest('my db password is hunter2'))) as Task);
      const turns = agent.referencedTasks.length;

      expect(await reasonOf(bob.send(referring('summarise it', [secret.id])))).toBe('TASK_NOT_FOUND');
      expect(await reasonOf(bob.stream(referring('summarise it', [secret.id])))).toBe('TASK_NOT_FOUND');
      // Behind one of the caller's own: each referenced task is checked, not the first.
      const own = asTask((await bob.send(sendRequest('mine'))) as Task);
      expect(await reasonOf(bob.send(referring('summarise both', [own.id, secret.id])))).toBe('TASK_NOT_FOUND');
      expect(await reasonOf(bob.stream(referring('summarise both', [own.id, secret.id])))).toBe('TASK_NOT_FOUND');
      expect(agent.referencedTasks.length, 'no refused turn reached the agent').toBe(turns + 1);

      // The caller's own tasks are handed to its turn, blocking or streamed.
      expect(await reasonOf(alice.send(referring('summarise it', [secret.id])))).toBe('answered');
      expect(agent.referencedTasks.at(-1)).toEqual([secret.id]);
      const streamed = await collect(alice.stream(referring('and again', [secret.id, secret.id])));
      expect(streamed.length).toBeGreaterThan(0);
      expect(agent.referencedTasks.at(-1)).toEqual([secret.id, secret.id]);
    });

    it('a task the registry does not know, referred to, is TaskNotFound once callers hold credentials', async () => {
      const unknown = randomUUID();
      expect(await reasonOf(alice.send(referring('summarise it', [unknown])))).toBe('TASK_NOT_FOUND');
      expect(await reasonOf(alice.stream(referring('summarise it', [unknown])))).toBe('TASK_NOT_FOUND');
    });

    it('a task of another tenant, referred to, is TaskNotFound, even for its own caller', async () => {
      const acme = asTask((await alice.send({ ...sendRequest('hello acme'), tenant: ACME })) as Task);
      expect(await reasonOf(alice.send(referring('summarise it', [acme.id])))).toBe('TASK_NOT_FOUND');
      expect(await reasonOf(alice.stream(referring('summarise it', [acme.id], 'other')))).toBe('TASK_NOT_FOUND');
      expect(await reasonOf(alice.send(referring('summarise it', [acme.id], ACME)))).toBe('answered');
      expect(agent.referencedTasks.at(-1)).toEqual([acme.id]);
    });
  });
});
