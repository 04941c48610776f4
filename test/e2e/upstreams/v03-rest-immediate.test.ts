/**
 * A send that does not wait (1.0 `returnImmediately`, Bailian `blocking: false`) to a real A2A 0.3 agent over
 * HTTP+JSON (a2a-js 1.x with its 0.3 compatibility on) whose turn ends a while after it opens. The turn is streamed
 * and its rest read past the answer, as for a 0.2.5 or 0.3 JSON-RPC agent (src/upstream/v025/immediate.ts): a reply
 * the agent gives later ends GetTask and Bailian's tasks/get with its words; a Message of its task, which the
 * agent's own SDK cannot stream ("Stream ordering violation"), ends the turn failed with that reason, and a push
 * receiver is told so. Either way the next message in the context is answered. Before, for that Message: the task
 * read working with no words for good (the agent's store keeps it so), every next message in the context was
 * refused as a turn in progress, and a push receiver was told nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../push/harness.js';
import { rpc, sentText, userMessage } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { artifactText, asTask, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { connectClient } from './sdk1-client.js';
import { answerText } from './v03-answer-message-agent.js';
import { startV03RestLaterAgent } from './v03-rest-later-agent.js';

let agent: RunningTestAgent;
let gateway: TestGateway;
beforeAll(async () => {
  agent = await startV03RestLaterAgent();
  gateway = await startTestGateway({ upstream: { url: agent.url, protocol: '0.3' } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const sentAtOnce = async (client: Client, text: string, contextId: string, push?: { url: string }): Promise<Task> =>
  asTask(
    await client.sendMessage({
      ...sendRequest(text, { contextId }),
      configuration: {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: true,
        taskPushNotificationConfig: push && { tenant: '', id: 'hook', taskId: '', url: push.url, token: 'tok', authentication: undefined },
      },
    }),
  );

/** The task once the gateway no longer reads it working (or still working, when it never ends). */
async function endedTask(client: Client, taskId: string): Promise<Task> {
  const read = () => client.getTask({ tenant: '', id: taskId, historyLength: undefined });
  await waitUntil(async () => (await read()).status?.state !== TaskState.TASK_STATE_WORKING).catch(() => undefined);
  return read();
}

/** What the next message in the context comes back as: its state and words, or the refusal. */
const nextInContext = (client: Client, text: string, contextId: string): Promise<string> =>
  client.sendMessage(sendRequest(text, { contextId })).then(
    (answer) => `${TaskState[asTask(answer).status?.state ?? 0]}: ${textOf(asTask(answer).status?.message)}`,
    (error: unknown) => `refused: ${error instanceof Error ? error.message : String(error)}`,
  );

describe.each(['JSONRPC', 'HTTP+JSON'] satisfies TransportName[])('returnImmediately over %s to a 0.3 HTTP+JSON agent', (transport) => {
  const tag = transport.replace(/\W/g, '').toLowerCase();

  it('a turn still running when answered: GetTask ends COMPLETED with the reply, and the next message is answered', async () => {
    const client = await connectClient(gateway.url, transport);
    const contextId = `later-${tag}`;
    const sent = await sentAtOnce(client, 'where is the harbour', contextId);
    expect(sent.status?.state).not.toBe(TaskState.TASK_STATE_COMPLETED);
    const got = await endedTask(client, sent.id);
    expect({
      state: TaskState[got.status?.state ?? 0],
      said: textOf(got.status?.message),
      reply: artifactText(got),
      next: await nextInContext(client, 'and the lighthouse?', contextId),
    }).toEqual({
      state: 'TASK_STATE_COMPLETED',
      said: answerText('where is the harbour'),
      reply: answerText('where is the harbour'),
      next: `TASK_STATE_COMPLETED: ${answerText('and the lighthouse?')}`,
    });
  });

  it("a turn whose Message the agent's own SDK cannot stream ends failed with the reason, and the context is free again", async () => {
    const client = await connectClient(gateway.url, transport);
    const contextId = `answer-${tag}`;
    const sent = await sentAtOnce(client, 'answer: where is the harbour', contextId);
    const got = await endedTask(client, sent.id);
    expect({ state: TaskState[got.status?.state ?? 0], said: textOf(got.status?.message) }).toEqual({
      state: 'TASK_STATE_FAILED',
      said: expect.stringContaining('Stream ordering violation'),
    });
    expect(await nextInContext(client, 'and the lighthouse?', contextId)).toBe(`TASK_STATE_COMPLETED: ${answerText('and the lighthouse?')}`);
  });
});

describe('Bailian message/send with blocking false to a 0.3 HTTP+JSON agent', () => {
  /** The state and words tasks/get ends with, and what the next message/send in the conversation reads. */
  async function turnAndNext(text: string, contextId: string): Promise<{ state: string; text: string; next: string }> {
    const sent = await rpc(gateway.url, 'message/send', {
      message: userMessage({ text, contextId }),
      configuration: { acceptedOutputModes: ['text/plain'], blocking: false },
    });
    expect(sent.body.error).toBeUndefined();
    const get = async () => (await rpc(gateway.url, 'tasks/get', { id: sent.body.result.id })).body.result;
    await waitUntil(async () => (await get())?.status?.state !== 'working').catch(() => undefined);
    const got = await get();
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'and the lighthouse?', contextId }) });
    return { state: got?.status?.state, text: sentText(got), next: next.body.error?.message ?? sentText(next.body.result) };
  }

  it('tasks/get shows the reply, completed, and the next message in the conversation is answered', async () => {
    expect(await turnAndNext('where is the harbour', 'later-bailian')).toEqual({
      state: 'completed',
      text: answerText('where is the harbour'),
      next: answerText('and the lighthouse?'),
    });
  });

  it("a turn whose Message the agent's own SDK cannot stream ends failed, and the next message in the conversation is answered", async () => {
    expect(await turnAndNext('answer: where is the harbour', 'answer-bailian')).toMatchObject({
      state: 'failed',
      next: answerText('and the lighthouse?'),
    });
  });
});

describe('a push receiver of a returnImmediately turn to a 0.3 HTTP+JSON agent answering with a Message of its task', () => {
  it("with push-events terminal, is told the turn FAILED with the reason when the agent's own SDK cannot stream its Message", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'v03-rest-immediate-push-'));
    const receiver = await new Receiver().up();
    const pushing = await startTestGateway({
      upstream: { url: agent.url, protocol: '0.3' },
      'push-notifications': true,
      'push-allow-private': true,
      'push-events': 'terminal',
      'persistence-dir': dir,
    });
    try {
      const client = await connectClient(pushing.url, 'JSONRPC');
      const sent = await sentAtOnce(client, 'answer: where is the harbour', 'answer-push', { url: `${receiver.url}/hook` });
      const told = () =>
        receiver
          .at('/hook')
          .map((entry) => (entry.json as any).task ?? (entry.json as any).statusUpdate)
          .find((said) => said?.status?.state === 'TASK_STATE_FAILED');
      await waitUntil(async () => told() !== undefined).catch(() => undefined);
      const said = (told()?.status?.message?.parts ?? []).map((part: { text?: string }) => part.text ?? '').join('');
      expect({ taskId: told()?.taskId ?? told()?.id, said }).toEqual({ taskId: sent.id, said: expect.stringContaining('Stream ordering violation') });
    } finally {
      await pushing.close();
      await receiver.down();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
