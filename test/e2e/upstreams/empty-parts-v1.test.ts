/**
 * The official a2a-js 1.x client → the gateway → a 1.0 agent that sends messages and artifacts without
 * parts (off-spec in 1.0: the proto marks `parts` REQUIRED): the turn is not failed for them, and the
 * caller is never relayed one (docs/version-mapping.md, Messages and artifacts without parts).
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { asTask, collect, partsText, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { V1_EMPTY_PARTS_ANSWER, startEmptyPartsV1Agent, type EmptyPartsV1Agent } from './empty-parts-v1-agent.js';
import { connectClient, outline } from './sdk1-client.js';

function expectPartsEverywhere(task: Task): void {
  expect(task.history.every((message) => message.parts.length > 0)).toBe(true);
  expect(task.artifacts.every((artifact) => artifact.parts.length > 0)).toBe(true);
  if (task.status?.message) expect(task.status.message.parts.length).toBeGreaterThan(0);
}

describe('a2a-js 1.x client → gateway → a 1.0 agent sending messages and artifacts without parts', () => {
  let agent: EmptyPartsV1Agent;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startEmptyPartsV1Agent();
    gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
    client = await connectClient(gateway.url, 'JSONRPC');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('SendStreamingMessage: the working statuses without their empty messages, no empty artifact, then the answer', async () => {
    const payloads = await collect(client.sendMessageStream(sendRequest('go')));
    expect(payloads.map(outline)).toEqual([
      'task',
      'statusUpdate:TASK_STATE_WORKING',
      'statusUpdate:TASK_STATE_WORKING',
      'artifactUpdate',
      'statusUpdate:TASK_STATE_COMPLETED',
    ]);
    const [task, working1, working2, artifact, completed] = payloads;
    if (task?.$case === 'task') expectPartsEverywhere(task.value);
    expect(working1?.$case === 'statusUpdate' && working1.value.status?.message).toBeFalsy();
    expect(working2?.$case === 'statusUpdate' && working2.value.status?.message).toBeFalsy();
    expect(artifact?.$case === 'artifactUpdate' && partsText(artifact.value.artifact?.parts ?? [])).toBe(V1_EMPTY_PARTS_ANSWER);
    expect(completed?.$case === 'statusUpdate' && textOf(completed.value.status?.message)).toBe(V1_EMPTY_PARTS_ANSWER);
  });

  it('SendMessage and GetTask: the task without its empty history message and artifact', async () => {
    const task = asTask(await client.sendMessage(sendRequest('blocking')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((artifact) => partsText(artifact.parts))).toEqual([V1_EMPTY_PARTS_ANSWER]);
    expectPartsEverywhere(task);
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(got.artifacts.map((artifact) => partsText(artifact.parts))).toEqual([V1_EMPTY_PARTS_ANSWER]);
    expectPartsEverywhere(got);
  });

  it('CancelTask: the canceled task, its status without the empty message', async () => {
    const canceled = await client.cancelTask({ tenant: '', id: 'task-unseen', metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(canceled.status?.message).toBeUndefined();
    expectPartsEverywhere(canceled);
  });
});
