/**
 * The official a2a-js 1.x client → the gateway with a small `tasks.history-limit` → a real a2a-js 0.2.5 agent,
 * which never stores a follow-up. Once the record keeps only the task's last messages, its first one is a
 * follow-up, not the message that opened the task: blocking answers and GetTask must not put it first (before
 * the opening message the agent shows), though they still keep the follow-ups the agent leaves out.
 */
import { randomUUID } from 'node:crypto';
import type { Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkV025Agent, V025_QUESTION, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';

const texts = (task: Task | undefined): string[] => (task?.history ?? []).map((message) => textOf(message));

describe('a record bounded by tasks.history-limit, a2a-js 0.2.5 upstream', () => {
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startSdkV025Agent();
    gateway = await startTestGateway({ upstream: { url: agent.url }, tasks: { 'history-limit': 4 } });
    client = await connectClient(gateway.url, 'JSONRPC');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('answers from the opening message on, the follow-ups the record still holds after their questions', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const opened = asTask(await client.sendMessage(sendRequest('ask: one', { contextId })));
    const ids = { contextId, taskId: opened.id };
    asTask(await client.sendMessage(sendRequest('ask: two', ids)));
    // The record now keeps its last 4 messages: from the follow-up 'ask: two' on.
    const third = asTask(await client.sendMessage(sendRequest('ask: three', ids)));
    const read = await client.getTask({ tenant: '', id: opened.id, historyLength: undefined });

    // The follow-up was sent on a record of [one, Q, two, Q]: each follow-up after the question it answered.
    expect(texts(third)).toEqual(['ask: one', V025_QUESTION, 'ask: two', V025_QUESTION, 'ask: three', V025_QUESTION]);
    // The record is now [two, Q, three, Q]: 'ask: two' has no message the agent holds before it there, so it is
    // not put back (caller-messages.ts), and certainly not first, before the opening message the agent shows.
    expect(texts(read)).toEqual(['ask: one', V025_QUESTION, V025_QUESTION, 'ask: three', V025_QUESTION]);
  });
});
