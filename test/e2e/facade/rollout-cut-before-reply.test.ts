/**
 * A rollout that cuts a Bailian turn before the agent's first word: the message was sent (the agent may be at
 * work on it: running it again is a second deployment for iac-code), but nothing came back yet, from a streaming
 * agent or from one asked the blocking way. The user must not be told to try again later: they read that the
 * agent may still be working on it and to check before sending it again; when the task is known (a follow-up),
 * their next message, on the process that replaced the cut one, shows the turn's rest without sending it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, rpc, sentText, startFacadeGateway, userMessage, type SseFrame } from '../../support/facade.js';
import { serveSdkAgent } from '../../support/sdk-v1-server.js';
import { Gates, testAgentCard } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';
import { agentStateOf, CARD, CUT_WORDS, QuietAgent, read, REST_WORDS, stream, WHOLE_WORDS } from './rollout-agent.js';

const QUESTION = '确认部署吗？';
const BEFORE_CUT = '开始部署。';
const AFTER_CUT = '正在部署 VPC。';
const DONE = '部署完成。';
/** What the cut tells a user whose task is known (the next message shows its rest), and one whose task is not. */
const CUT_KNOWN = { zh: '你的请求可能已送达智能体，它可能仍在处理。请先在本对话中发送任意消息', en: 'Send any message in this conversation' };
const CUT_UNKNOWN = { zh: '请先询问智能体的进度', en: 'Ask the agent about its progress first' };
const RETRY = ['请稍后重试', 'shutting down', 'try again later'];

/** What the user reads of a turn: a stream's or an answer's text, or the error it ended with. */
const readStream = (frames: SseFrame[]): string =>
  frames
    .map((frame) => frame.json.error?.message ?? (frame.json.result?.kind === 'artifact-update' ? frame.json.result.artifact.parts[0]?.text : ''))
    .join('');

describe.each([
  { agent: 'streaming', streaming: true },
  { agent: 'blocking', streaming: false },
])('a turn a rollout cut before the $agent agent said anything', ({ streaming }) => {
  const gates = new Gates();
  const executor = new QuietAgent(gates, { question: QUESTION, before: BEFORE_CUT, after: AFTER_CUT, done: DONE });
  let agentUrl: string;
  let closeAgent: () => void;
  let dir: string;
  const opened: RunningGateway[] = [];
  const gateway = async (upstream: Record<string, unknown> = {}): Promise<RunningGateway> => {
    const started = await startFacadeGateway({ upstream: { url: agentUrl, ...upstream }, 'drain-timeout-ms': 200, 'persistence-dir': dir });
    opened.push(started);
    return started;
  };

  beforeAll(async () => {
    const card = (url: string) => ({ ...testAgentCard(CARD)(url), capabilities: { streaming, pushNotifications: false, extensions: [] } });
    const { url, server } = await serveSdkAgent(card, executor, { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' });
    agentUrl = url;
    closeAgent = () => (server.close(), server.closeAllConnections());
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-cut-before-reply-'));
  });
  afterAll(async () => {
    gates.reset(0);
    for (const started of opened) await started.close().catch(() => undefined);
    closeAgent?.();
    await rm(dir, { recursive: true, force: true });
  });

  /** `text` sent on `replica` the `way` given while the agent waits at its gate before its first word, cut by the replica's shutdown. */
  async function cutTurn(replica: RunningGateway, way: 'stream' | 'send', text: string, contextId: string): Promise<string> {
    gates.reset(1);
    const message = userMessage({ text, contextId });
    const reading =
      way === 'stream'
        ? openStream(`${replica.url}/stream`, 'message/stream', { message }).then(async (opened) => readStream(await opened.rest()))
        : rpc(replica.url, 'message/send', { message }).then(({ body }) => body.error?.message ?? sentText(body.result));
    await waitUntil(async () => gates.reached === 1);
    await replica.close();
    return reading;
  }

  /** The agent finishes the cut turn; the conversation's next message, on a new process, shows its rest without sending it. */
  async function restOnNextMessage(contextId: string): Promise<string> {
    gates.open();
    await waitUntil(async () => (await agentStateOf(agentUrl, gates.taskId)) === 'TASK_STATE_COMPLETED');
    const executions = executor.executions;
    const next = await read(await stream((await gateway()).url, '继续', contextId));
    expect(next.text).toContain(WHOLE_WORDS);
    expect(next.text).toContain(DONE);
    expect(executor.executions).toBe(executions);
    return next.text;
  }

  for (const [way, language, start, confirm] of [
    ['stream', 'zh', '开始规划', '确认'],
    ['send', 'en', 'start planning', 'yes, go on'],
  ] as const) {
    it(`${way}, a follow-up: the user is told the agent may be at work, and the next message shows the rest, not sent`, async () => {
      const contextId = `ctx-known-${way}-${randomUUID()}`;
      const replicaA = await gateway();
      const asked = await read(await stream(replicaA.url, start, contextId));
      expect(asked.text).toBe(QUESTION);
      const cut = await cutTurn(replicaA, way, confirm, contextId);
      expect(cut).toContain(CUT_KNOWN[language]);
      for (const retry of RETRY) expect(cut).not.toContain(retry);
      await restOnNextMessage(contextId);
    });
  }

  for (const [way, language, text] of [
    ['send', 'en', 'Plan a VPC'],
    ['stream', 'zh', '规划一个VPC'],
  ] as const) {
    it(`${way}, a new task whose id never came back: the user (${language}) is told to ask about its progress first`, async () => {
      const cut = await cutTurn(await gateway(), way, text, `ctx-new-${randomUUID()}`);
      expect(cut).toContain(CUT_UNKNOWN[language]);
      for (const retry of RETRY) expect(cut).not.toContain(retry);
      gates.open();
    });
  }

  it('a follow-up cut while it still waited for a connection to the agent: told to try again, and the next message is sent', async () => {
    const contextId = `ctx-queued-${randomUUID()}`;
    // The gateway's one connection to the agent is held by another conversation's turn, waiting at the agent's gate.
    const replicaA = await gateway({ connections: 1 });
    expect((await read(await stream(replicaA.url, '开始部署', contextId))).text).toBe(QUESTION);
    gates.reset(1);
    const holding = stream(replicaA.url, '占用连接', `ctx-holding-${randomUUID()}`).then((opened) => opened.rest());
    await waitUntil(async () => gates.reached === 1);
    const executions = executor.executions;
    const answer = rpc(replicaA.url, 'message/send', { message: userMessage({ text: '确认', contextId }) });
    // Long enough for the follow-up to reach the pool's queue; it never reaches the agent.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await replicaA.close();
    const { body } = await answer;
    const told: string = body.error?.message ?? sentText(body.result);
    expect(executor.executions).toBe(executions);
    expect(told).not.toContain(CUT_KNOWN.zh);
    expect(told).toContain('请稍后重试');
    await holding.catch(() => undefined);
    gates.open();
    const next = await read(await stream((await gateway()).url, '继续', contextId));
    expect(next.text).not.toContain(REST_WORDS);
    expect(next.text).not.toContain(WHOLE_WORDS);
    expect(next.text).toContain(DONE);
    expect(executor.executions).toBe(executions + 1);
  });

  it.runIf(streaming)('a tasks/resubscribe the rollout cut: the next message shows what the task said after the cut', async () => {
    const contextId = `ctx-resubscribed-${randomUUID()}`;
    const replicaA = await gateway();
    gates.reset(1);
    const message = userMessage({ text: '后台部署', contextId });
    const accepted = await rpc(replicaA.url, 'message/send', { message, configuration: { blocking: false } });
    const taskId = accepted.body.result.id;
    await waitUntil(async () => gates.reached === 1);
    const resubscribed = await openStream(`${replicaA.url}/stream`, 'tasks/resubscribe', { id: taskId });
    expect(resubscribed.response.status).toBe(200);
    await replicaA.close();
    expect(readStream(await resubscribed.rest())).toContain(CUT_WORDS);
    const rest = await restOnNextMessage(contextId);
    expect(rest).toContain(AFTER_CUT);
    expect(rest).not.toContain(BEFORE_CUT);
  });
});
