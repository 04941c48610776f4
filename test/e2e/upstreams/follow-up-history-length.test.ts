/**
 * The official a2a-js 1.x client → the gateway → a real agent (a2a-js 0.2.5, a2a-js 1.x, the embedded demo
 * agent), a follow-up sent with `configuration.historyLength`: the bound cuts only the answer the caller reads
 * (A2A 1.0 §3.2.4). The gateway's record of the task keeps its whole history, the follow-up and its answer
 * included: GetTask and ListTasks agree with each other and with the agent, now and after one more turn.
 * Asked with the bound, an agent that cuts (a2a-js) answered a history the gateway then took for the task's,
 * and a 0.2.5 agent, which never stores a follow-up, lost the user's words for good.
 */
import { randomUUID } from 'node:crypto';
import type { SendMessageRequest, Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkV025Agent, V025_QUESTION, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { BOOK_QUESTION, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, listRequest, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';

interface Upstream {
  name: string;
  start(): Promise<{ url?: string; close(): Promise<void> }>;
  /** What the user says on each turn: the agent must take a follow-up after each one but the last. */
  turns: [string, string, string?];
  /** The agent's words the whole history must hold, oldest first, among the user's. */
  said: string[];
}

const UPSTREAMS: Upstream[] = [
  {
    name: 'a2a-js 0.2.5',
    start: (): Promise<RunningSdkV025Agent> => startSdkV025Agent(),
    turns: ['ask: one', 'ask: two', 'ask: three'],
    said: [V025_QUESTION],
  },
  {
    name: 'a2a-js 1.x',
    start: (): Promise<RunningScriptedAgent> => startScriptedAgent(),
    turns: ['book', 'May 4'],
    said: [BOOK_QUESTION],
  },
  {
    name: 'the demo agent',
    start: async () => ({ close: async () => undefined }),
    turns: ['one', 'two', 'three'],
    said: [],
  },
];

const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

const texts = (task: Task | undefined): string[] => (task?.history ?? []).map((message) => textOf(message));

function followUp(text: string, ids: { contextId: string; taskId: string }, historyLength: number): SendMessageRequest {
  const request = sendRequest(text, ids);
  return { ...request, configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength, returnImmediately: false } };
}

describe.each(UPSTREAMS)('a follow-up with historyLength, $name upstream', (upstream) => {
  let agent: { url?: string; close(): Promise<void> };
  let gateway: TestGateway;

  beforeAll(async () => {
    agent = await upstream.start();
    gateway = await startTestGateway(agent.url ? { upstream: { url: agent.url } } : {});
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let client: Client;
    beforeAll(async () => {
      client = await connectClient(gateway.url, transport);
    });

    const listed = async (contextId: string): Promise<Task | undefined> => (await client.listTasks(listRequest({ contextId }))).tasks[0];

    it('answers the last message only, and GetTask and ListTasks keep the whole history, the follow-up included', async () => {
      const contextId = `ctx-${randomUUID()}`;
      const [first, second, third] = upstream.turns;
      const opened = asTask(await client.sendMessage(sendRequest(first, { contextId })));
      const ids = { contextId, taskId: opened.id };

      const answered = asTask(await client.sendMessage(followUp(second, ids, 1)));
      // The record as the answer left it (ListTasks), before a GetTask reads the agent's task again.
      const history = texts(await listed(contextId));
      expect(texts(await client.getTask({ tenant: '', id: opened.id, historyLength: undefined }))).toEqual(history);
      expect(answered.history).toHaveLength(1);
      expect(texts(answered)).toEqual(history.slice(-1));
      // The user's words, each after what came before, and the agent's question between them.
      expect(history[0]).toBe(first);
      expect(history.indexOf(second)).toBeGreaterThan(0);
      for (const said of upstream.said) expect(history.indexOf(said)).toBeLessThan(history.indexOf(second));

      if (third === undefined) return;
      const last = asTask(await client.sendMessage(sendRequest(third, ids)));
      const after = texts(await client.getTask({ tenant: '', id: opened.id, historyLength: undefined }));
      expect(after.slice(0, history.length)).toEqual(history);
      expect(after).toContain(third);
      expect(texts(last)).toEqual(after);
      expect(texts(await listed(contextId))).toEqual(after);
    });
  });
});
