/**
 * Bailian hangs up a message/stream before the agent's first event reached the facade (the facade had not even
 * answered with headers: a REAL a2a-js 1.x agent holds its own until its first event). Once the message has
 * left the gateway the agent may be at work on it: a follow-up into a known task is noted as a hang-up after
 * the first event is (unwatched-turns.ts), so the conversation's next message shows the agent's words instead
 * of being sent as an answer to a question its user never read. A new task whose id no event named yet is followed
 * until its first event does, then noted the same way (unwatched-new-task-hung-up-before-first-event.test.ts). A
 * message that never left the gateway (still waiting for a connection) is not noted: the next message is sent.
 * An agent that says nothing within `upstream.first-event-timeout-ms` is left running the same way, and its user
 * reads that it goes on, as message/send's does past its bound (unwatched-silent-turns.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStream, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import { agentStateOf, DONE, QUESTION, quietAgentBehindFacade, read, REST_WORDS, stream, WHOLE_WORDS } from './rollout-agent.js';

const LEFT_RUNNING = '智能体仍在继续处理你的请求。请在本对话中发送任意消息';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A message/stream as Bailian opens it (plain fetch, SSE), hung up once `agentReached` holds: asserts the
 * facade had answered nothing by then (no headers, so no event and no opening comment).
 */
async function hangUpBeforeFirstEvent(url: string, text: string, contextId: string, agentReached: () => Promise<boolean>): Promise<void> {
  const controller = new AbortController();
  let answered = false;
  const call = fetch(`${url}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method: 'message/stream', params: { message: userMessage({ text, contextId }) } }),
    signal: controller.signal,
  }).then(
    () => void (answered = true),
    () => undefined,
  );
  await waitUntil(agentReached);
  expect(answered).toBe(false);
  controller.abort();
  await call;
  // The facade hears of the hang-up before the test lets the agent go on.
  await sleep(150);
}

describe('a message/stream its Bailian user hung up before the agent said a word', () => {
  const quiet = quietAgentBehindFacade({ connections: 1 });
  const { gates, executor } = quiet;

  it('a follow-up the agent received: the next message shows its reply, not sent', async () => {
    const contextId = `ctx-hung-up-early-${randomUUID()}`;
    expect((await read(await stream(quiet.gateway.url, '开始规划', contextId))).text).toBe(QUESTION);
    gates.reset(1);
    await hangUpBeforeFirstEvent(quiet.gateway.url, '确认', contextId, async () => gates.reached === 1);
    gates.open();
    await waitUntil(async () => (await agentStateOf(quiet.agent.url, gates.taskId)) === 'TASK_STATE_COMPLETED');
    const executions = executor.executions;
    const next = await read(await stream(quiet.gateway.url, '继续', contextId));
    expect(next.text).toContain(WHOLE_WORDS);
    expect(next.text).toContain(DONE);
    expect(executor.executions).toBe(executions);
  });

  it('a follow-up still waiting for a connection to the agent: nothing noted, the next message is sent', async () => {
    const contextId = `ctx-hung-up-queued-${randomUUID()}`;
    expect((await read(await stream(quiet.gateway.url, '开始部署', contextId))).text).toBe(QUESTION);
    // The gateway's one connection to the agent is held by another conversation's turn, waiting at the agent's gate.
    gates.reset(1);
    const holding = stream(quiet.gateway.url, '占用连接', `ctx-holding-${randomUUID()}`).then((opened) => opened.rest());
    await waitUntil(async () => gates.reached === 1);
    const executions = executor.executions;
    // Long enough for the follow-up to reach the pool's queue; it never reaches the agent.
    let waited = false;
    await hangUpBeforeFirstEvent(quiet.gateway.url, '确认', contextId, async () => (await sleep(150), (waited = true)));
    expect(waited).toBe(true);
    expect(executor.executions).toBe(executions);
    gates.open();
    await holding;
    const next = await read(await stream(quiet.gateway.url, '继续', contextId));
    expect(next.text).not.toContain(REST_WORDS);
    expect(next.text).not.toContain(WHOLE_WORDS);
    expect(next.text).toContain(DONE);
    expect(executor.executions).toBe(executions + 1);
  });

  it('a follow-up the agent says nothing of within the first-event bound: told the agent goes on, and the next message shows its reply', async () => {
    const hurried = await startFacadeGateway({ upstream: { url: quiet.agent.url, 'first-event-timeout-ms': 300 } });
    onTestFinished(() => hurried.close());
    const contextId = `ctx-first-event-bound-${randomUUID()}`;
    expect((await read(await stream(hurried.url, '开始规划', contextId))).text).toBe(QUESTION);
    gates.reset(1);
    const opened = await openStream(`${hurried.url}/stream`, 'message/stream', { message: userMessage({ text: '确认', contextId }) });
    const told = (await opened.rest()).map((frame) => frame.json.error?.message ?? '').join('');
    expect(told).toContain(LEFT_RUNNING);
    expect(told).not.toContain('超时');
    gates.open();
    await waitUntil(async () => (await agentStateOf(quiet.agent.url, gates.taskId)) === 'TASK_STATE_COMPLETED');
    const executions = executor.executions;
    const next = await read(await stream(hurried.url, '继续', contextId));
    expect(next.text).toContain(WHOLE_WORDS);
    expect(next.text).toContain(DONE);
    expect(executor.executions).toBe(executions);
  });

  it('a new task whose id no event named yet: followed until its first event names it, the next message shows its reply, not sent', async () => {
    const contextId = `ctx-hung-up-new-${randomUUID()}`;
    gates.reset(1);
    await hangUpBeforeFirstEvent(quiet.gateway.url, '规划一个VPC', contextId, async () => gates.reached === 1);
    gates.open();
    const executions = executor.executions;
    const next = await read(await stream(quiet.gateway.url, '你好', contextId));
    expect(next.text).not.toContain(REST_WORDS);
    expect(next.text).toContain(WHOLE_WORDS);
    expect(next.text).toContain(DONE);
    expect(executor.executions).toBe(executions);
  });
});
