/**
 * A 1.0 client that answers iac-code's INPUT_REQUIRED end of turn by streaming a follow-up into the task reads a
 * stream that opens with the Task, on every binding (the official a2a-js 1.x client), as A2A 1.0 wants of
 * SendStreamingMessage (a2a-python's client fails otherwise: "Expected first streaming event to be a Task or
 * Message"). iac-code sends its Task only for a new task and opens a follow-up's stream with a statusUpdate
 * SUBMITTED (docs/iac-code.md); the gateway puts the task as recorded in front (core/stream-opening.ts).
 */
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, collect, connect, outline, sendRequest, textOf, type Payload } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({ script: { before: ['Planning the VPC. '], after: ['Done.'], artifact: { filename: 'main.tf' } } });
  gateway = await startTestGateway({ upstream: { url: fake.url }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

const BINDINGS: Record<string, () => Promise<Client>> = {
  JSONRPC: async () => (await connect(gateway.url, 'JSONRPC')).client,
  'HTTP+JSON': async () => (await connect(gateway.url, 'HTTP+JSON')).client,
  GRPC: () => connectGrpc(gateway.url),
};

const withHistoryLength = (request: SendMessageRequest, historyLength: number): SendMessageRequest => ({
  ...request,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength, returnImmediately: false },
});

/** A task iac-code left waiting for the user (its turn ended INPUT_REQUIRED), then a follow-up streamed into it. */
async function followUpStream(client: Client, historyLength?: number): Promise<{ taskId: string; payloads: Payload[] }> {
  const task = asTask(await client.sendMessage(sendRequest('write a VPC template')));
  expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const followUp = sendRequest('make it two zones', { taskId: task.id, contextId: task.contextId });
  const payloads = await collect(client.sendMessageStream(historyLength === undefined ? followUp : withHistoryLength(followUp, historyLength)));
  return { taskId: task.id, payloads };
}

describe.each(Object.keys(BINDINGS))('over %s', (binding) => {
  it("a follow-up's stream opens with the task: the first turn and the follow-up in its history, its files, SUBMITTED", async () => {
    const { taskId, payloads } = await followUpStream(await BINDINGS[binding]!());
    expect(payloads.slice(0, 2).map(outline)).toEqual(['task', `statusUpdate:${TaskState.TASK_STATE_SUBMITTED}`]);
    const opening = payloads[0]!.$case === 'task' ? payloads[0]!.value : undefined;
    expect(opening?.id).toBe(taskId);
    expect(opening?.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const history = (opening?.history ?? []).map(textOf);
    expect(history[0]).toBe('write a VPC template');
    expect(history).toContain('Done.');
    expect(history.at(-1)).toBe('make it two zones');
    expect(opening?.artifacts.map((artifact) => artifact.name)).toEqual(['main.tf']);
    expect(payloads.at(-1) && outline(payloads.at(-1)!)).toBe(`statusUpdate:${TaskState.TASK_STATE_INPUT_REQUIRED}`);
  });

  it('the opening Task holds as much history as historyLength asks', async () => {
    const { payloads } = await followUpStream(await BINDINGS[binding]!(), 1);
    const opening = payloads[0]!.$case === 'task' ? payloads[0]!.value : undefined;
    expect((opening?.history ?? []).map(textOf)).toEqual(['make it two zones']);
  });
});
