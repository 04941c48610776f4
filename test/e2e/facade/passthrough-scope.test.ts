/**
 * In front of a 0.2.5 agent the facade relays its calls to the agent untouched (passthrough.ts), past
 * the core that keeps callers apart. The tasks and contexts of 1.0 callers are recorded there all the
 * same, and a relayed call that names one of them is answered as the core would: task-not-found, or
 * the context refused, never relayed. The facade's own relayed tasks are recorded too, so a task the
 * registry does not know (evicted, expired) is not found here either, as it is for the core. A real
 * a2a-js 0.2.5 agent, a 1.0 caller with a Bearer token and a Bailian-style caller with the facade's key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startSdkV025Agent, V025_ASK_PREFIX, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { API_KEY, openStream, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json', authorization: 'Bearer one-token' };
const FACADE = { 'content-type': 'application/json', 'x-api-key': API_KEY };

let agent: RunningSdkV025Agent;
let gateway: RunningGateway;
/** The same, with a registry that keeps one task: the one before it is forgotten. */
let forgetful: RunningGateway;

beforeAll(async () => {
  agent = await startSdkV025Agent();
  const config = { upstream: { url: agent.url }, auth: { token: 'one-token' }, bailian: { 'api-key': API_KEY } };
  gateway = await startRelayingFacadeGateway(config);
  forgetful = await startRelayingFacadeGateway({ ...config, tasks: { 'max-tasks': 1 } });
});
afterAll(async () => {
  await forgetful?.close();
  await gateway?.close();
  await agent?.close();
});

async function post(headers: Record<string, string>, method: string, params: unknown, url = gateway.url): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    signal: AbortSignal.timeout(5_000),
  });
}

const rpc = async (headers: Record<string, string>, method: string, params: unknown, url = gateway.url): Promise<any> =>
  (await post(headers, method, params, url)).json();

const ask = (text: string) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `${V025_ASK_PREFIX}${text}` }] } });

it("a relayed call naming a 1.0 caller's task or context is refused; the facade's own task is still relayed", async () => {
  const created = await rpc(V1, 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `${V025_ASK_PREFIX}which region?` }] },
  });
  const { id, contextId } = created.result.task as { id: string; contextId: string };
  expect(created.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

  expect((await rpc(FACADE, 'tasks/get', { id })).error?.code).toBe(-32001);
  expect((await rpc(FACADE, 'tasks/cancel', { id })).error?.code).toBe(-32001);
  const resubscribe = await post({ ...FACADE, accept: 'text/event-stream' }, 'tasks/resubscribe', { id });
  expect(resubscribe.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(await resubscribe.text()).toMatch(/"code":\s*-32001/);
  expect((await rpc(FACADE, 'message/send', { message: userMessage({ text: 'eu-west', taskId: id, contextId }) })).error?.code).toBe(-32001);
  const intoContext = await rpc(FACADE, 'message/send', { message: userMessage({ text: 'hello', contextId }) });
  expect(intoContext.error?.code).toBe(-32602);
  expect(intoContext.error?.message).toMatch(/not available/);
  // Nothing of it reached the agent: the 1.0 caller's task still waits for its answer.
  expect((await rpc(V1, 'GetTask', { id })).result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

  const own = await rpc(FACADE, 'message/send', { message: userMessage({ text: 'hello' }) });
  expect(own.result?.kind).toBe('task');
  const read = await rpc(FACADE, 'tasks/get', { id: own.result.id });
  expect(read.result?.id).toBe(own.result.id);
});

it("a 1.0 caller's task the registry forgot is not relayed for the facade's caller", async () => {
  const first = (await rpc(V1, 'SendMessage', ask('which region?'), forgetful.url)).result.task as { id: string };
  await rpc(V1, 'SendMessage', ask('which zone?'), forgetful.url);
  // Forgotten by the gateway, still at the agent: relayed, the agent would show it to the facade's caller.
  const read = await rpc(FACADE, 'tasks/get', { id: first.id }, forgetful.url);
  expect(read.error?.code).toBe(-32001);
  expect(read.result).toBeUndefined();
  expect((await rpc(FACADE, 'tasks/cancel', { id: first.id }, forgetful.url)).error?.code).toBe(-32001);
  expect((await agent.stored(first.id, 'input-required')).status.state).toBe('input-required');
});

it("the facade's own relayed tasks are recorded: its caller reads and continues them, a 1.0 caller cannot", async () => {
  const sent = await rpc(FACADE, 'message/send', { message: userMessage({ text: `${V025_ASK_PREFIX}which region?` }) });
  expect(sent.result?.status?.state).toBe('input-required');
  const stream = await openStream(gateway.url, 'message/stream', { message: userMessage({ text: 'hello' }) }, { headers: FACADE });
  const opening = (await stream.next())?.json.result as { id?: string; taskId?: string; contextId: string };
  const streamedId = opening.id ?? opening.taskId;
  // Read at once, before the stream is over: the record was made before the id went out.
  expect((await rpc(FACADE, 'tasks/get', { id: streamedId })).result?.id).toBe(streamedId);
  await stream.rest();

  const continued = await rpc(FACADE, 'message/send', {
    message: userMessage({ text: 'eu-west', taskId: sent.result.id, contextId: sent.result.contextId }),
  });
  expect(continued.result?.id).toBe(sent.result.id);
  expect(continued.result?.status?.state).toBe('completed');

  expect((await rpc(V1, 'GetTask', { id: sent.result.id })).error?.code).toBe(-32001);
  const intoContext = await rpc(V1, 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', contextId: sent.result.contextId, parts: [{ text: 'hello' }] },
  });
  expect(intoContext.error?.code).toBe(-32602);
  expect((await rpc(V1, 'GetTask', { id: streamedId })).error?.code).toBe(-32001);
});
