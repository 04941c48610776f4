/**
 * A send that does not wait (1.0 `returnImmediately`, Bailian `blocking: false`) to a real a2a-js 0.2.5 agent that
 * answers its turn with a Message of its task (`answer:`: Task, working, then the Message, which ends its stream).
 * The rest of the turn, read past the answer, ends the task COMPLETED with that Message as a blocking or streamed
 * send does (docs/version-mapping.md), though the agent's own store keeps it working: GetTask, ListTasks, Bailian's
 * tasks/get and a push receiver say so, and the next message in the context is answered. Before: working with no
 * words for good, and every next message refused as a turn in progress. A 0.3 agent (a2a-js 1.x) whose own SDK
 * breaks that stream ends the turn failed with the reason, the context free again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Receiver } from '../push/harness.js';
import { reading, rpc, sentText, userMessage } from '../../support/facade.js';
import { startTestGateway } from '../../support/gateway.js';
import { startSdkV025Agent, v025Reply } from '../../support/sdk-v025-agent.js';
import { asTask, listRequest, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { connectClient } from './sdk1-client.js';
import { startV03AnswerAgent } from './v03-answer-message-agent.js';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

const PROMPT = 'answer: where is the harbour';

async function gatewayInFrontOfV025(extra: Record<string, unknown> = {}): Promise<string> {
  const agent = await startSdkV025Agent();
  open.push(() => agent.close());
  const gateway = await startTestGateway({ upstream: { url: agent.url }, ...extra });
  open.push(() => gateway.close());
  return gateway.url;
}

const sentAtOnce = async (client: Client, text: string, push?: { url: string }): Promise<Task> =>
  asTask(
    await client.sendMessage({
      ...sendRequest(text),
      configuration: {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: true,
        taskPushNotificationConfig: push && { tenant: '', id: 'hook', taskId: '', url: push.url, token: 'tok', authentication: undefined },
      },
    }),
  );

async function endedTask(client: Client, taskId: string): Promise<Task> {
  const read = () => client.getTask({ tenant: '', id: taskId, historyLength: undefined });
  await waitUntil(async () => (await read()).status?.state !== TaskState.TASK_STATE_WORKING).catch(() => undefined);
  return read();
}

/** What the next message in the context comes back as: its state, or the refusal. */
const nextInContext = (client: Client, contextId: string): Promise<string> =>
  client.sendMessage(sendRequest('and the lighthouse?', { contextId })).then(
    (answer) => TaskState[asTask(answer).status?.state ?? 0]!,
    (error: unknown) => `refused: ${error instanceof Error ? error.message : String(error)}`,
  );

describe.each(['JSONRPC', 'HTTP+JSON'] satisfies TransportName[])(
  'returnImmediately over %s to a 0.2.5 agent answering with a Message of its task',
  (transport) => {
    it('GetTask and ListTasks say COMPLETED with the answer, and the next message in the context is answered', async () => {
      const client = await connectClient(await gatewayInFrontOfV025(), transport);
      const sent = await sentAtOnce(client, PROMPT);
      const got = await endedTask(client, sent.id);
      const listed = (await client.listTasks(listRequest({ contextId: sent.contextId }))).tasks.find((task) => task.id === sent.id);
      expect({
        getTask: TaskState[got.status?.state ?? 0],
        said: textOf(got.status?.message),
        listed: TaskState[listed?.status?.state ?? 0],
        next: await nextInContext(client, sent.contextId),
      }).toEqual({ getTask: 'TASK_STATE_COMPLETED', said: v025Reply(PROMPT, 1).full, listed: 'TASK_STATE_COMPLETED', next: 'TASK_STATE_COMPLETED' });
    });
  },
);

describe('Bailian message/send with blocking false to a 0.2.5 agent answering with a Message of its task', () => {
  it('tasks/get shows the answer, completed, and the next message is answered, sent or streamed', async () => {
    const url = await gatewayInFrontOfV025();
    const sent = await rpc(url, 'message/send', {
      message: userMessage({ text: PROMPT, contextId: 'ctx-harbour' }),
      configuration: { acceptedOutputModes: ['text/plain'], blocking: false },
    });
    expect(sent.body.error).toBeUndefined();
    const taskId = sent.body.result.id;
    await waitUntil(async () => (await rpc(url, 'tasks/get', { id: taskId })).body.result?.status?.state !== 'working').catch(() => undefined);
    const got = (await rpc(url, 'tasks/get', { id: taskId })).body.result;
    expect({ state: got?.status?.state, text: sentText(got) }).toEqual({ state: 'completed', text: v025Reply(PROMPT, 1).full });
    expect(await reading(url, 'message/send', 'and then?', 'ctx-harbour')).toBe(v025Reply('and then?', 2).full);
    expect(await reading(url, 'message/stream', 'and after that?', 'ctx-harbour')).toBe(v025Reply('and after that?', 3).full);
  });
});

describe('a push receiver of a returnImmediately turn a 0.2.5 agent answers with a Message of its task', () => {
  it('with push-events terminal, is told the turn COMPLETED with the answer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'immediate-message-push-'));
    open.push(() => rm(dir, { recursive: true, force: true }));
    const receiver = await new Receiver().up();
    open.push(() => receiver.down());
    const url = await gatewayInFrontOfV025({
      'push-notifications': true,
      'push-allow-private': true,
      'push-events': 'terminal',
      'persistence-dir': dir,
    });
    const client = await connectClient(url, 'JSONRPC');
    const sent = await sentAtOnce(client, PROMPT, { url: `${receiver.url}/hook` });
    const told = () =>
      receiver
        .at('/hook')
        .map((entry) => (entry.json as any).task ?? (entry.json as any).statusUpdate)
        .find((said) => said?.status?.state === 'TASK_STATE_COMPLETED');
    await waitUntil(async () => told() !== undefined).catch(() => undefined);
    const said = (told()?.status?.message?.parts ?? []).map((part: { text?: string }) => part.text ?? '').join('');
    expect({ taskId: told()?.taskId ?? told()?.id, said }).toEqual({ taskId: sent.id, said: v025Reply(PROMPT, 1).full });
  });
});

describe("returnImmediately to a 0.3 agent (a2a-js 1.x) whose own SDK breaks the turn's stream at its Message", () => {
  it('ends the turn failed with the reason instead of keeping the context busy for good', async () => {
    const agent = await startV03AnswerAgent('JSONRPC');
    open.push(() => agent.close());
    const gateway = await startTestGateway({ upstream: { url: agent.url, protocol: '0.3' } });
    open.push(() => gateway.close());
    const client = await connectClient(gateway.url, 'JSONRPC');
    const sent = await sentAtOnce(client, PROMPT);
    const got = await endedTask(client, sent.id);
    expect({ state: TaskState[got.status?.state ?? 0], said: textOf(got.status?.message) }).toEqual({
      state: 'TASK_STATE_FAILED',
      said: expect.stringContaining('Stream ordering violation'),
    });
    // The context is free: the next message reaches the agent (whose blocking answer is its Message).
    expect(await nextInContext(client, sent.contextId)).toBe('TASK_STATE_COMPLETED');
  });
});
