/**
 * A 0.2.5 message names tasks in more than one place: `message.taskId` (the task it continues), the
 * `referenceTaskIds` it refers to (an a2a-js agent loads each in full and hands it to the turn), and, in
 * front of a 0.2.5 agent whose calls the facade relays as they are (passthrough.ts), whatever else a
 * caller puts in `params` (`id`, `taskId`), which the relay used to check in place of the one the agent
 * reads. Every one of them must be the caller's, or the call is -32001 and nothing reaches the agent: a
 * 1.0 caller's task is not the facade caller's. The official a2a-js 0.2.5 client (the facade without a
 * key: its callers are anonymous, the 1.0 caller holds a token), through the relay in front of a real
 * a2a-js 0.2.5 agent on the memory and the Redis store, and through the core in front of a real a2a-js
 * 1.x agent that reports which tasks it loaded.
 */
import { randomUUID } from 'node:crypto';
import type { MessageSendParams } from 'a2a-sdk-025';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, sdkParams, startFacadeGateway, startRelayingFacadeGateway } from '../../support/facade.js';
import { deleteRedisKeys, requireRedis, EACH_STORE } from '../../support/redis.js';
import { startSdkV025Agent, V025_ASK_PREFIX, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';

const TOKEN = 'reference-v1-token-0123';
const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };

beforeAll(requireRedis);

/** A 1.0 caller's JSON-RPC call (the victim's side). */
async function v1(url: string, method: string, params: unknown): Promise<any> {
  const answer = await fetch(url, { method: 'POST', headers: V1, body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }) });
  return answer.json();
}

/** A 1.0 caller's task, left waiting for its answer when `ask`. */
async function v1Task(url: string, text: string): Promise<{ id: string; contextId: string }> {
  const sent = await v1(url, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
  return sent.result.task as { id: string; contextId: string };
}

/** 0.2.5 params of a message referring to `taskIds`. */
function referring(text: string, taskIds: string[], ids: { taskId?: string } = {}): MessageSendParams {
  const params = sdkParams(text, ids);
  return { ...params, message: { ...params.message, referenceTaskIds: taskIds } };
}

/** The error a 0.2.5 client's stream fails with, on its first event. */
async function streamError(client: A2AClient, params: MessageSendParams): Promise<string> {
  try {
    await collect(client.sendMessageStream(params));
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return 'answered';
}

describe.each(EACH_STORE)('the relay in front of a 0.2.5 agent ($name store)', ({ config }) => {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  let agent: RunningSdkV025Agent;
  let gateway: RunningGateway;
  let client: A2AClient;

  beforeAll(async () => {
    agent = await startSdkV025Agent();
    gateway = await startRelayingFacadeGateway({ ...config(prefix), upstream: { url: agent.url }, auth: { token: TOKEN } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
    await deleteRedisKeys(prefix);
  });

  const messagesRelayed = () => agent.received.filter((request) => request.rpcMethod?.startsWith('message/')).length;

  it("a message naming the caller's own task in one field and another's where the agent reads is -32001, never relayed", async () => {
    const victim = await v1Task(gateway.url, `${V025_ASK_PREFIX}my db password is hunter2; which region?`);
    const own: any = await client.sendMessage(sdkParams('hello'));
    expect(own.result?.kind).toBe('task');
    const relayed = messagesRelayed();

    // Extra fields a 0.2.5 message's params do not have, which the relay passes on as they are.
    const smuggled: Array<[object, number]> = [
      [{ id: own.result.id, ...sdkParams('eu-west', { taskId: victim.id }) }, -32001],
      [{ taskId: own.result.id, ...sdkParams('eu-west', { taskId: victim.id }) }, -32001],
      [{ id: victim.id, ...sdkParams('eu-west', { taskId: own.result.id }) }, -32001],
      // An id that is not a string: a JavaScript agent may read a one-element array as the id it holds.
      [sdkParams('eu-west', { taskId: [victim.id] as unknown as string }), -32602],
    ];
    for (const [params, code] of smuggled) {
      const answer: any = await client.sendMessage(params as MessageSendParams);
      expect(answer.result, JSON.stringify(params)).toBeUndefined();
      expect(answer.error?.code).toBe(code);
      expect(await streamError(client, params as MessageSendParams)).toContain(String(code));
    }
    expect(messagesRelayed()).toBe(relayed);
    // Nothing reached the agent: the 1.0 caller's task still waits for its own answer.
    expect((await v1(gateway.url, 'GetTask', { id: victim.id })).result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it("referenceTaskIds naming another's task, or one the registry does not know, is -32001, never relayed; the caller's own are", async () => {
    const victim = await v1Task(gateway.url, 'my db password is hunter2');
    const own: any = await client.sendMessage(sdkParams('hello'));
    const relayed = messagesRelayed();

    for (const taskIds of [[victim.id], [own.result.id, victim.id], [randomUUID()]]) {
      const answer: any = await client.sendMessage(referring('summarise them', taskIds));
      expect(answer.error?.code, JSON.stringify(taskIds)).toBe(-32001);
      expect(answer.error?.message).toBe(`Task ${taskIds.at(-1)} not found`);
      expect(await streamError(client, referring('summarise them', taskIds))).toMatch(/-32001/);
    }
    expect(messagesRelayed()).toBe(relayed);

    const referred: any = await client.sendMessage(referring('summarise it', [own.result.id]));
    expect(referred.result?.kind).toBe('task');
    expect(await streamError(client, referring('and again', [own.result.id]))).toBe('answered');
    expect(messagesRelayed()).toBe(relayed + 2);

    // Each referred task is looked up before the call goes on: more than a turn refers to is refused unread.
    const many = Array.from({ length: 65 }, () => own.result.id as string);
    const tooMany: any = await client.sendMessage(referring('all of them', many));
    expect(tooMany.error).toMatchObject({ code: -32602, message: 'Invalid params: message.referenceTaskIds: at most 64 tasks' });
    expect(messagesRelayed()).toBe(relayed + 2);
  });
});

describe('through the core in front of an a2a-js 1.x agent (bailian profile)', () => {
  let agent: RunningSdkV1Agent;
  let gateway: RunningGateway;
  let client: A2AClient;

  beforeAll(async () => {
    agent = await startSdkV1Agent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, auth: { token: TOKEN } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it("referenceTaskIds naming a 1.0 caller's task, or one the registry does not know, is -32001; the caller's own are loaded", async () => {
    const victim = await v1Task(gateway.url, 'my db password is hunter2');
    const own: any = await client.sendMessage(sdkParams('hello'));
    expect(own.result?.kind).toBe('task');
    const turns = agent.referencedTasks.length;

    for (const taskIds of [[victim.id], [own.result.id, victim.id], [randomUUID()]]) {
      const answer: any = await client.sendMessage(referring('summarise them', taskIds));
      expect(answer.error?.code, JSON.stringify(taskIds)).toBe(-32001);
      expect(await streamError(client, referring('summarise them', taskIds))).toMatch(/-32001/);
    }
    expect(agent.referencedTasks.length, 'no refused turn reached the agent').toBe(turns);

    const referred: any = await client.sendMessage(referring('summarise it', [own.result.id]));
    expect(referred.error).toBeUndefined();
    expect(agent.referencedTasks.at(-1)).toEqual([own.result.id]);
    expect(await streamError(client, referring('and again', [own.result.id]))).toBe('answered');
    expect(agent.referencedTasks.at(-1)).toEqual([own.result.id]);
  });
});
