/**
 * The official a2a-js 1.x client → the gateway → a real a2a-js 1.x agent that asks a question, answered on a
 * stream. Such an agent writes each status message into its task's history as it sends it, and opens the
 * answer's stream with that task: the question is in its history already when the status moves on. The
 * gateway's record (ListTasks, what a push carries) kept it a second time, after the answer.
 */
import { randomUUID } from 'node:crypto';
import type { Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../support/collect.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { BOOK_QUESTION, bookedReply, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { asTask, listRequest, sendRequest, textOf, TRANSPORTS } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';

const texts = (task: Task | undefined): string[] => (task?.history ?? []).map((message) => textOf(message));

describe.each(TRANSPORTS)('a question answered on a stream, over %s', (transport) => {
  let agent: RunningScriptedAgent;
  let gateway: TestGateway;
  let client: Client;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    gateway = await startTestGateway({ upstream: { url: agent.url } });
    client = await connectClient(gateway.url, transport);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it("the gateway's record holds the question once, before the answer, as the agent's own task does", async () => {
    const contextId = `ctx-${randomUUID()}`;
    const asked = asTask(await client.sendMessage(sendRequest('book', { contextId })));
    await collect(client.sendMessageStream(sendRequest('May 4', { contextId, taskId: asked.id })));

    const recorded = texts((await client.listTasks(listRequest({ contextId }))).tasks[0]);
    expect(recorded.filter((text) => text === BOOK_QUESTION)).toHaveLength(1);
    expect(recorded.slice(0, 3)).toEqual(['book', BOOK_QUESTION, 'May 4']);
    expect(recorded).toContain(bookedReply('May 4')[0]);
  });
});
