/**
 * The official a2a-js 1.x client → the gateway → an agent that reuses its message ids in every turn (iac-code:
 * `<taskId>-message` for every chunk, `<taskId>-2` for the final text; the demo agent behaves alike) and never
 * shows its task's opening message. A history cut by historyLength is the agent's last messages, as the agent
 * itself answers: the caller's follow-up is not taken for the latest message. The whole history is one and the
 * same from GetTask, ListTasks, a blocking answer and a push notification: the opening message first, as recorded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Role, type SendMessageRequest, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoAgent } from '../../../src/demo-agent/index.js';
import { startFakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, listRequest, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectClient } from '../upstreams/sdk1-client.js';
import { Receiver } from '../push/harness.js';

const AGENTS = [
  { name: 'the fake iac-code', start: () => startFakeIacCode() },
  { name: 'the demo agent', start: () => startDemoAgent() },
];

const texts = (task: Task | undefined): string[] => (task?.history ?? []).map((message) => textOf(message));
const cutTo = (history: string[], length: number): string[] => history.slice(Math.max(0, history.length - length));

function withHistoryLength(request: SendMessageRequest, historyLength: number): SendMessageRequest {
  return { ...request, configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength, returnImmediately: false } };
}

describe.each(AGENTS)('history of a two-turn task, $name upstream', ({ start }) => {
  let agent: { url: string; close(): Promise<void> };
  let gateway: TestGateway;
  let receiver: Receiver;
  let dir: string;
  let client: Client;
  let direct: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-history-e2e-'));
    receiver = await new Receiver().up();
    agent = await start();
    gateway = await startTestGateway({
      upstream: { url: agent.url },
      'push-notifications': true,
      'push-allow-private': true,
      'persistence-dir': dir,
    });
    client = await connectClient(gateway.url, 'JSONRPC');
    direct = await connectClient(agent.url, 'JSONRPC');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
    await receiver?.down();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Two turns, the follow-up blocking: the task's id and context. */
  async function twoTurns(followUpHistoryLength?: number): Promise<{ taskId: string; contextId: string }> {
    const contextId = randomUUID();
    const { id: taskId } = asTask(await client.sendMessage(sendRequest('one', { contextId })));
    const second = sendRequest('two', { contextId, taskId });
    await client.sendMessage(followUpHistoryLength === undefined ? second : withHistoryLength(second, followUpHistoryLength));
    return { taskId, contextId };
  }

  it('GetTask cut by historyLength answers the last messages as the agent does', async () => {
    const { taskId } = await twoTurns();
    for (const historyLength of [1, 2, 3]) {
      const [through, asked] = await Promise.all([
        client.getTask({ tenant: '', id: taskId, historyLength }),
        direct.getTask({ tenant: '', id: taskId, historyLength }),
      ]);
      expect(texts(through)).toEqual(texts(asked));
      // The follow-up is older than the agent's reply to it: no cut this short holds it.
      expect(through.history.map((message) => message.role)).not.toContain(Role.ROLE_USER);
    }
  });

  it('GetTask, ListTasks, the blocking answer and the push notification show one whole history, the opening message first', async () => {
    const contextId = randomUUID();
    const { id: taskId } = asTask(await client.sendMessage(sendRequest('one', { contextId })));
    const hook = `/hook-${taskId}`;
    const created = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'CreateTaskPushNotificationConfig',
        params: { taskId, id: 'hook', url: `${receiver.url}${hook}` },
      }),
    });
    expect(((await created.json()) as { error?: unknown }).error).toBeUndefined();
    // The follow-up's answer cut to one message: the push notification of its turn keeps the whole history.
    const answered = asTask(await client.sendMessage(withHistoryLength(sendRequest('two', { contextId, taskId }), 1)));

    const asked = texts(await direct.getTask({ tenant: '', id: taskId, historyLength: undefined }));
    const whole = texts(await client.getTask({ tenant: '', id: taskId, historyLength: undefined }));
    expect(whole).toEqual(['one', ...asked]);
    expect(texts((await client.listTasks(listRequest({ contextId }))).tasks[0])).toEqual(whole);
    expect(texts(answered)).toEqual(cutTo(whole, 1));
    const [delivery] = await receiver.waitFor(hook, 1);
    const pushed = (delivery!.json as { task?: { history?: Array<{ parts: Array<{ text?: string }> }> } }).task;
    expect((pushed?.history ?? []).map((message) => message.parts.map((part) => part.text ?? '').join(''))).toEqual(whole);
  });
});
