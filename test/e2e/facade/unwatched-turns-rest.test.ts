/**
 * A Bailian user stops watching a turn a REAL a2a-js 1.x agent goes on with: a message/send runs past
 * `upstream.request-timeout-ms`, or Bailian hangs up a message/stream. The user must read that the agent goes on
 * and how to read its end (not "上游智能体响应超时", which has them send the request again: a second deployment),
 * and their next message must show what the agent said after (its answer, followed live while it still works;
 * its question), without being sent to the agent as the answer to words they never read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { Gates, startSdkTestAgent, testAgentCard, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { serveSdkAgent } from '../../support/sdk-v1-server.js';
import { waitUntil } from '../../support/wait-until.js';
import {
  AFTER_CUT,
  BEFORE_CUT,
  CARD,
  DONE,
  QUESTION,
  QuietAgent,
  REST_WORDS,
  RolloutAgent,
  WHOLE_WORDS,
  agentStateOf,
  read,
  stream,
} from './rollout-agent.js';

/**
 * What a user reads when message/send's bound left the turn running, and what opens the rest (for the same message
 * again: its answer, not to be sent again), by the language they wrote in.
 */
const WORDS = {
  zh: {
    prompt: '请帮我创建一个专有网络',
    leftRunning: '智能体仍在继续处理你的请求。请在本对话中发送任意消息',
    timedOut: '上游智能体响应超时',
    rest: REST_WORDS,
    // The bound passed: no connection broke, and the words do not say one did.
    sameMessage: '你刚发送的消息与上一条消息相同：智能体处理那条消息的时间较长',
    resend: '请在这条回复结束后重新发送',
  },
  en: {
    prompt: 'Please create a VPC for me',
    leftRunning: 'but it is still working on your request. Send any message in this conversation',
    timedOut: 'timed out',
    rest: 'Here is the rest of the reply to your previous message',
    sameMessage: 'The message you just sent is the same as your previous one',
    resend: 'send it again once this reply has finished',
  },
};

describe('a turn its Bailian user stopped watching while the agent went on', () => {
  const gates = new Gates();
  const executor = new RolloutAgent(gates);
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startSdkTestAgent(CARD, executor);
    gateway = await startFacadeGateway({ upstream: { url: agent.url, 'request-timeout-ms': 400 } });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
    await agent?.close();
  });

  const send = async (text: string, contextId: string): Promise<{ text: string; state: string }> => {
    const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text, contextId }) });
    return { text: sentText(body.result), state: body.result?.status?.state };
  };

  it.each(['zh', 'en'] as const)(
    'message/send past its bound (%s): told the agent goes on, and the next message shows its result',
    async (language) => {
      const words = WORDS[language];
      const contextId = `unwatched-send-${language}-${Date.now()}`;
      gates.reset(1);
      const executions = executor.executions;
      const first = await send(words.prompt, contextId);
      expect(first.text).toContain(BEFORE_CUT[1]);
      expect(first.text).toContain(words.leftRunning);
      expect(first.text).not.toContain(words.timedOut);
      expect(first.state).toBe('failed');
      gates.open();
      await waitUntil(async () => (await agentStateOf(agent.url, gates.taskId)) === 'TASK_STATE_COMPLETED');
      // The user sends the request again (Bailian's retry does too): the rest is its answer, not to be sent once more.
      const next = await send(words.prompt, contextId);
      expect(next.text).toContain(words.sameMessage);
      expect(next.text).not.toContain(words.resend);
      expect(next.text).toContain(AFTER_CUT);
      expect(next.text).toContain(DONE);
      expect(next.text).not.toContain(BEFORE_CUT[1]);
      // The request ran once: the message that read its result was not passed on.
      expect(executor.executions).toBe(executions + 1);
    },
  );

  it('message/send past its bound, the next message sent while the agent still works: the rest followed live', async () => {
    const contextId = `unwatched-send-live-${Date.now()}`;
    gates.reset(1);
    const executions = executor.executions;
    expect((await send(WORDS.zh.prompt, contextId)).text).toContain(WORDS.zh.leftRunning);
    const reading = stream(gateway.url, '继续', contextId).then(read);
    setTimeout(() => gates.open(), 150);
    const next = await reading;
    expect(next.text).toContain('以下是你上一条消息的后续回复：智能体处理时间较长，上次回复已停止等待');
    expect(next.text).not.toContain('连接中断');
    expect(next.text).toContain(DONE);
    expect(next.state).toBe('completed');
    expect(executor.executions).toBe(executions + 1);
  });

  it('Bailian hangs up a message/stream and the agent then asks: the next message shows the question, unsent', async () => {
    const contextId = `unwatched-hang-up-${Date.now()}`;
    gates.reset(1);
    const executions = executor.executions;
    const opened = await stream(gateway.url, '创建 VPC，然后提问', contextId);
    for (let frame = await opened.next(); frame && !JSON.stringify(frame.json).includes(BEFORE_CUT[1]!); frame = await opened.next());
    opened.abort();
    // The gateway hears of the hang-up before the agent goes on (else it relays the rest to the closed connection).
    await new Promise((resolve) => setTimeout(resolve, 150));
    gates.open();
    await waitUntil(async () => (await agentStateOf(agent.url, gates.taskId)) === 'TASK_STATE_INPUT_REQUIRED');
    const next = await read(await stream(gateway.url, '杭州', contextId));
    expect(next.text).toContain(REST_WORDS);
    expect(next.text).toContain(AFTER_CUT);
    expect(next.text).toContain(QUESTION);
    expect(executor.executions).toBe(executions + 1);
  });

  it('Bailian hangs up a message/send within its bound and the agent then asks: the next message shows the question, unsent', async () => {
    const contextId = `unwatched-send-hang-up-${Date.now()}`;
    gates.reset(1);
    const executions = executor.executions;
    const hangUp = new AbortController();
    const request = {
      jsonrpc: '2.0',
      id: 'hung-up',
      method: 'message/send',
      params: { message: userMessage({ text: '创建 VPC，然后提问', contextId }) },
    };
    const sending = fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: hangUp.signal,
    }).catch(() => undefined);
    await waitUntil(async () => gates.reached === 1);
    hangUp.abort();
    await sending;
    // The gateway hears of the hang-up before the agent goes on.
    await new Promise((resolve) => setTimeout(resolve, 150));
    gates.open();
    await waitUntil(async () => (await agentStateOf(agent.url, gates.taskId)) === 'TASK_STATE_INPUT_REQUIRED');
    const next = await send('杭州', contextId);
    // Its user read none of the turn: the reply to their previous message, whole, not its rest.
    expect(next.text).toContain('以下是你上一条消息的完整回复');
    expect(next.text).not.toContain(REST_WORDS);
    expect(next.text).toContain(QUESTION);
    expect(executor.executions).toBe(executions + 1);
  });
});

describe('a message/send to an agent asked the blocking way, past its bound before any answer', () => {
  const gates = new Gates();
  const executor = new QuietAgent(gates);
  let closeAgent: () => void;
  let agentUrl: string;
  let gateway: RunningGateway;
  beforeAll(async () => {
    const card = (url: string) => ({ ...testAgentCard(CARD)(url), capabilities: { streaming: false, pushNotifications: false, extensions: [] } });
    const { url, server } = await serveSdkAgent(card, executor, { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' });
    agentUrl = url;
    closeAgent = () => (server.close(), server.closeAllConnections());
    gateway = await startFacadeGateway({ upstream: { url, 'request-timeout-ms': 400 } });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
    closeAgent?.();
  });

  /** What the user reads of a message/send: its answer's text, or the error it ended with. */
  const send = async (text: string, contextId: string): Promise<string> => {
    const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text, contextId }) });
    return body.error?.message ?? sentText(body.result);
  };

  it('a follow-up (its task known): told the agent goes on, and the next message shows its answer, not sent', async () => {
    const contextId = `unwatched-blocking-${Date.now()}`;
    expect(await send('开始规划', contextId)).toContain(QUESTION);
    gates.reset(1);
    const executions = executor.executions;
    const answered = await send('确认', contextId);
    expect(answered).toContain(WORDS.zh.leftRunning);
    expect(answered).not.toContain(WORDS.zh.timedOut);
    gates.open();
    await waitUntil(async () => (await agentStateOf(agentUrl, gates.taskId)) === 'TASK_STATE_COMPLETED');
    const next = await send('继续', contextId);
    expect(next).toContain(WHOLE_WORDS);
    expect(next).toContain(DONE);
    expect(executor.executions).toBe(executions + 1);
  });

  it('a new task, whose id never came back: the time-out as before, nothing noted', async () => {
    const contextId = `unwatched-blocking-new-${Date.now()}`;
    gates.reset(1);
    expect(await send('Please create a VPC for me', contextId)).toMatch(/^Upstream agent timed out/);
    gates.open();
    await waitUntil(async () => (await agentStateOf(agentUrl, gates.taskId)) === 'TASK_STATE_COMPLETED');
    // The next message goes to the agent, as any.
    const executions = executor.executions;
    expect(await send('Another VPC, please', contextId)).toContain(DONE);
    expect(executor.executions).toBe(executions + 1);
  });
});
