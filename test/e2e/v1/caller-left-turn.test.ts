/**
 * A caller that stops waiting for a blocking SendMessage (hangs up over HTTP, its gRPC deadline
 * passes) does not end the turn: the agent goes on with it anyway, so the gateway keeps the upstream
 * call open, records the task when the agent answers, and the caller finds it with ListTasks, the
 * agent's words included. Before, the upstream call was aborted and the task never recorded: the
 * caller could neither see nor cancel the work it had started.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { status } from '@grpc/grpc-js';
import { TaskState, type Task } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startHeldTurnsAgent, type HeldTurn, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { connect, listRequest, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

let agent: HeldTurnsAgent;
let gateway: TestGateway;

beforeAll(async () => {
  agent = await startHeldTurnsAgent();
  gateway = await startTestGateway({ grpc: { port: 0 }, upstream: { url: agent.url } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** The held turn of the message `text`, once the agent has it. */
async function heldTurn(text: string): Promise<HeldTurn> {
  let turn: HeldTurn | undefined;
  await waitUntil(async () => (turn = agent.held().find((held) => held.text === text)) !== undefined);
  return turn!;
}

/** What the caller's ListTasks (the official SDK client, JSON-RPC) shows of the context. */
async function listedIn(contextId: string): Promise<Task[]> {
  const { client } = await connect(gateway.url, 'JSONRPC');
  return (await client.listTasks(listRequest({ contextId, historyLength: 10 }))).tasks;
}

/** The agent finishes the turn after its caller left: the answer reaches the gateway and the task is listed. */
async function finishedAfterTheCallerLeft(turn: HeldTurn, text: string): Promise<void> {
  expect(await Promise.race([turn.closed, sleep(300).then(() => 'open')]), 'the upstream call stays open').toBe('open');
  turn.complete();
  expect(await turn.closed).toBe('finished');
  let listed: Task[] = [];
  await waitUntil(async () => (listed = await listedIn(turn.contextId)).length > 0);
  expect(listed.map((task) => [task.id, task.status?.state])).toEqual([[turn.taskId, TaskState.TASK_STATE_COMPLETED]]);
  expect(textOf(listed[0]!.status?.message)).toBe(`done: ${text}`);
}

describe('a blocking SendMessage whose caller stops waiting', () => {
  it.each([
    [
      'JSON-RPC',
      (text: string, contextId: string, signal: AbortSignal) =>
        fetch(`${gateway.url}/`, {
          method: 'POST',
          headers: JSON_HEADERS,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams(text, contextId) }),
          signal,
        }),
    ],
    [
      'HTTP+JSON',
      (text: string, contextId: string, signal: AbortSignal) =>
        fetch(`${gateway.url}/message:send`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(sendParams(text, contextId)), signal }),
    ],
  ])("%s: the caller hangs up; the turn runs to its end and is listed with the agent's words", async (binding, send) => {
    const text = `left over ${binding}`;
    const caller = new AbortController();
    const sent = send(text, `ctx-left-${binding.replace(/\W/g, '')}`, caller.signal).catch((error: Error) => error);
    const turn = await heldTurn(text);
    caller.abort();
    expect(await sent).toBeInstanceOf(Error);
    await finishedAfterTheCallerLeft(turn, text);
  });

  it('gRPC: the deadline passes (DEADLINE_EXCEEDED); the turn runs to its end and is listed', async () => {
    const text = 'left over gRPC';
    const transport = await grpcTransport(gateway, {}, { deadline: Date.now() + 1_500 });
    const failure = grpcFailureOf(transport.sendMessage(sendRequest(text, { contextId: 'ctx-left-grpc' }), wire()));
    const turn = await heldTurn(text);
    expect(await failure).toMatchObject({ status: status.DEADLINE_EXCEEDED });
    await finishedAfterTheCallerLeft(turn, text);
  });
});

function sendParams(text: string, contextId: string): unknown {
  return { message: { messageId: `m-${contextId}`, role: 'ROLE_USER', contextId, parts: [{ text }] } };
}
