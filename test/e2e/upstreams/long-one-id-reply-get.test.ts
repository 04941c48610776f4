/**
 * The official a2a-js 1.x client → the gateway with a small `tasks.history-limit` → a real a2a-js 1.x agent that
 * streams its reply (SendStreamingMessage) in more chunks than the record keeps, all under one message id (as an
 * LLM-backed agent streams its tokens). The agent's store keeps the first chunk of that id alone; the gateway's
 * record, bounded to its last messages, must still hold the whole reply, so GetTask (and ListTasks) show every word
 * the stream carried, not the first chunk alone.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, requireRedis, EACH_STORE } from '../../support/redis.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startTokenStreamer } from '../../support/token-streamer.js';
import { listRequest, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { StreamReader, connectClient } from './sdk1-client.js';

const HISTORY_LIMIT = 20;
/** More chunks than the record keeps messages, each a word of its own. */
const CHUNKS = Array.from({ length: 45 }, (_, i) => `w${i} `);
const REPLY = CHUNKS.join('');

/** What a reader of the task's history reads of the agent's reply: its messages' words, in order. */
const replyOf = (task: Task | undefined): string =>
  (task?.history ?? [])
    .filter((message) => message.role === Role.ROLE_AGENT)
    .map((message) => textOf(message))
    .join('');

describe.each(EACH_STORE)('a reply of more one-id chunks than tasks.history-limit ($name store)', ({ name, config }) => {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  let agent: RunningTestAgent;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    if (name === 'redis') await requireRedis();
    agent = await startTokenStreamer(CHUNKS);
    gateway = await startTestGateway({ ...config(prefix), upstream: { url: agent.url }, tasks: { 'history-limit': HISTORY_LIMIT } });
    client = await connectClient(gateway.url, 'JSONRPC');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
    if (name === 'redis') await deleteRedisKeys(prefix);
  });

  const getTask = (id: string) => client.getTask({ tenant: '', id, historyLength: undefined });

  it('GetTask, read twice, and ListTasks show the whole reply after the prompt', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const streamed = await new StreamReader(client.sendMessageStream(sendRequest('explain VPCs', { contextId }))).rest();
    const taskId = streamed[0]?.$case === 'task' ? streamed[0].value.id : '';
    const reads = [await getTask(taskId), await getTask(taskId)];
    for (const read of reads) {
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(read.history[0])).toBe('explain VPCs');
      expect(replyOf(read)).toBe(REPLY);
    }
    expect(replyOf((await client.listTasks(listRequest({ contextId }))).tasks[0])).toBe(REPLY);
  });
});
