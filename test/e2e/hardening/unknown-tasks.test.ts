/**
 * A task the gateway no longer knows (here: evicted from a one-task registry) cannot tell whose it was.
 * With credentials configured it is not found for every caller, on every method that names a task, so
 * one credential never reaches another's task through the agent (which scopes tasks to the gateway's one
 * credential). Without any credential, every caller is anonymous and the agent answers as before: the
 * control below shows that an evicted task does reach the agent, so the refusal is the gateway's.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
const ALICE = { ...V1, authorization: 'Bearer alice-token' };
const BOB = { ...V1, 'x-api-key': 'bob-key' };
const FACADE = { 'content-type': 'application/json', 'x-api-key': 'facade-key' };

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

async function rpc(headers: Record<string, string>, method: string, params: unknown): Promise<any> {
  const response = await fetch(gateway!.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const message = (text: string, taskId?: string) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) },
});

async function createTask(headers: Record<string, string>): Promise<string> {
  const answer = await rpc(headers, 'SendMessage', message('hello'));
  expect(answer.error).toBeUndefined();
  return answer.result.task.id as string;
}

/** What a 1.0 caller gets for each method naming `taskId`: the error code, or 'answered'. */
async function reach(headers: Record<string, string>, taskId: string): Promise<Record<string, number | string>> {
  const code = (answer: any) => answer.error?.code ?? 'answered';
  const rest = await fetch(`${gateway!.url}/tasks/${taskId}`, { headers, signal: AbortSignal.timeout(5_000) });
  await rest.body?.cancel();
  const subscribe = await fetch(gateway!.url, {
    method: 'POST',
    headers: { ...headers, accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
    signal: AbortSignal.timeout(5_000),
  });
  const frames = await subscribe.text();
  return {
    GetTask: code(await rpc(headers, 'GetTask', { id: taskId })),
    'GET /tasks/{id}': rest.status,
    CancelTask: code(await rpc(headers, 'CancelTask', { id: taskId })),
    SubscribeToTask: /"code":\s*-32001/.test(frames) ? -32001 : 'answered',
    'SendMessage into it': code(await rpc(headers, 'SendMessage', message('and now?', taskId))),
  };
}

const NOT_FOUND = { GetTask: -32001, 'GET /tasks/{id}': 404, CancelTask: -32001, SubscribeToTask: -32001, 'SendMessage into it': -32001 };

describe('a task the registry no longer holds', () => {
  it('with credentials: not found for another credential, for its own creator, and on the facade', async () => {
    gateway = await startSdkGateway({
      auth: { token: 'alice-token', 'api-key': 'bob-key', 'api-key-header': 'X-API-KEY' },
      bailian: { 'api-key': 'facade-key' },
      tasks: { 'max-tasks': 1 },
    });
    const alices = await createTask(ALICE);
    // While recorded, Alice's task is hers alone.
    expect((await rpc(ALICE, 'GetTask', { id: alices })).result.id).toBe(alices);
    expect((await rpc(BOB, 'GetTask', { id: alices })).error.code).toBe(-32001);

    await createTask(BOB); // the one-task registry forgets Alice's
    expect(await reach(BOB, alices)).toEqual(NOT_FOUND);
    expect(await reach(ALICE, alices)).toEqual(NOT_FOUND);
    const facade = await rpc(FACADE, 'tasks/get', { id: alices });
    expect(facade.error?.code).toBe(-32001);
  });

  it('without any credential: every caller is anonymous, and the agent still answers for it', async () => {
    gateway = await startSdkGateway({ tasks: { 'max-tasks': 1 } });
    const first = await createTask(V1);
    await createTask(V1);
    const got = await rpc(V1, 'GetTask', { id: first });
    expect(got.error).toBeUndefined();
    expect(got.result.id).toBe(first);
  });
});
