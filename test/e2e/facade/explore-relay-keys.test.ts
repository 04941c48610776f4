/**
 * A Bailian-style caller (X-API-KEY) of the facade relaying a real a2a-js 0.2.5 agent (profile a2a-0.2.5):
 * two keys are two callers, and neither may read, cancel, continue or resubscribe to the other's tasks and
 * conversations, whichever way the task was started (message/send or message/stream); a caller that hangs up
 * mid-stream hangs up the agent's call; a bad request gets a 0.2.5 JSON-RPC error with the caller's id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, postRaw, results, rpc, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import { startExploreRelayAgent, type ExploreRelayAgent } from './explore-relay-agent.js';

const ALICE = { 'X-API-KEY': 'alice-key-0123456789' };
const BOB = { 'X-API-KEY': 'bob-key-0123456789' };
const TASK_NOT_FOUND = -32001;

let agent: ExploreRelayAgent;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startExploreRelayAgent();
  gateway = await startRelayingFacadeGateway({
    upstream: { url: agent.url },
    bailian: {
      'api-keys': [
        { name: 'alice', key: ALICE['X-API-KEY'] },
        { name: 'bob', key: BOB['X-API-KEY'] },
      ],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

/** A task Alice started with `method`, as the relay answered it. */
async function alicesTask(method: 'message/send' | 'message/stream', prompt: string): Promise<{ id: string; contextId: string }> {
  if (method === 'message/send') return (await rpc(gateway.url, method, { message: userMessage({ text: prompt }) }, { headers: ALICE })).body.result;
  const opened = await openStream(gateway.url, method, { message: userMessage({ text: prompt }) }, { headers: ALICE });
  return results(await opened.rest())[0];
}

describe.each(['message/send', 'message/stream'] as const)('another key never reaches a task Alice started by %s', (method) => {
  it('tasks/get and tasks/cancel: task not found for Bob, the task for Alice', async () => {
    const task = await alicesTask(method, 'ask');
    for (const call of ['tasks/get', 'tasks/cancel']) {
      const refused = await rpc(gateway.url, call, { id: task.id }, { headers: BOB, id: 7 });
      expect(refused.body, call).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: TASK_NOT_FOUND } });
    }
    const read = await rpc(gateway.url, 'tasks/get', { id: task.id }, { headers: ALICE });
    expect(read.body.result).toMatchObject({ id: task.id, status: { state: 'input-required' } });
  });

  it("Bob's answer by taskId or contextId never reaches Alice's question; Alice's does", async () => {
    const task = await alicesTask(method, 'ask');
    const byTask = await rpc(
      gateway.url,
      'message/send',
      { message: userMessage({ text: 'EUR', taskId: task.id, contextId: task.contextId }) },
      { headers: BOB },
    );
    expect(byTask.body.error).toMatchObject({ code: TASK_NOT_FOUND });
    const byContext = await openStream(
      gateway.url,
      'message/stream',
      { message: userMessage({ text: 'EUR', contextId: task.contextId }) },
      { headers: BOB },
    );
    expect((await byContext.rest()).map((frame) => frame.json.error?.code)).toStrictEqual([expect.any(Number)]);
    const resubscribed = await openStream(gateway.url, 'tasks/resubscribe', { id: task.id }, { headers: BOB });
    expect((await resubscribed.rest()).map((frame) => frame.json.error?.code)).toStrictEqual([TASK_NOT_FOUND]);
    const answered = await rpc(
      gateway.url,
      'message/send',
      { message: userMessage({ text: 'EUR', taskId: task.id, contextId: task.contextId }) },
      { headers: ALICE },
    );
    expect(answered.body.result).toMatchObject({ id: task.id, status: { state: 'completed' } });
  });
});

it("a caller hanging up mid-stream hangs up the agent's call", async () => {
  const opened = await openStream(gateway.url, 'message/stream', { message: userMessage({ text: 'long' }) }, { headers: ALICE });
  expect((await opened.next())?.json.result.kind).toBe('task');
  opened.abort();
  await waitUntil(async () => agent.hungUp.includes('message/stream'), 2000);
});

describe('bad requests get the 0.2.5 errors the translating facade gives, with the caller id', () => {
  const cases: [string, string, number][] = [
    ['not JSON', '{"jsonrpc":"2.0","id":', -32700],
    ['no method', JSON.stringify({ jsonrpc: '2.0', id: 3 }), -32600],
    ['an unknown method', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/list', params: {} }), -32601],
    [
      'a message without parts',
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'message/send', params: { message: { kind: 'message', role: 'user', messageId: 'm' } } }),
      -32602,
    ],
    [
      'a message whose parts are a string',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'message/send',
        params: { message: { kind: 'message', role: 'user', messageId: 'm', parts: 'hi' } },
      }),
      -32602,
    ],
    ['message/stream without a message', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'message/stream', params: {} }), -32602],
    ['tasks/cancel with an empty id', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { id: '' } }), -32602],
    ['tasks/get without an id', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: {} }), -32602],
    ['a task id that is a number', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 5 } }), -32602],
  ];
  it.each(cases)('%s', async (_name, body, code) => {
    const answer = await postRaw(gateway.url, body, ALICE);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code } });
    if (code !== -32700) expect(answer.body.id).toBe(3);
    // The agent's own words for such a call are its TypeError's or a failed task's: it must not be asked.
    expect(answer.text).not.toMatch(/Cannot read|is not a function|Agent execution error/);
  });
});
