/**
 * A 1.0 caller's blocking SendMessage into a turn where iac-code asks for permission: iac-code answers a blocking
 * send at the turn's first INPUT_REQUIRED, the permission prompt included (captured: its history the chunks so far,
 * the prompt in `metadata.iac_code.input`; docs/iac-code.md), so the caller gets the prompt at once, with what it
 * needs to answer, and not the gateway's time-out. Answered by stream, the turn then goes on and ends as any
 * turn does. The official a2a-js 1.x client on every binding, whichever way iac-code's prompt waits.
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_PROMPT } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, collect, connect, outline, permissionAnswer, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

interface PermissionInput {
  kind: string;
  requestTaskId: string;
  inputId: string;
  toolUseId: string;
  prompt: string;
  options: Array<{ id: string; label: string }>;
}

/** The prompt a task waits on, as a 1.0 caller reads it from the task's metadata. */
const promptOf = (task: Task): PermissionInput | undefined =>
  (task.metadata as { iac_code?: { input?: PermissionInput } } | undefined)?.iac_code?.input;

describe.each(['open', 'parked'] as const)('iac-code whose permission prompt waits %s', (permissionWait) => {
  let fake: FakeIacCode;
  let gateway: TestGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      permissionWait,
      script: { before: ['Drafting main.tf. '], after: ['Wrote main.tf.'], artifact: { filename: 'main.tf' }, permission: true },
    });
    gateway = await startTestGateway({ upstream: { url: fake.url }, grpc: { port: 0 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const bindings: Record<string, () => Promise<Client>> = {
    JSONRPC: async () => (await connect(gateway.url, 'JSONRPC')).client,
    'HTTP+JSON': async () => (await connect(gateway.url, 'HTTP+JSON')).client,
    GRPC: () => connectGrpc(gateway.url),
  };

  it.each(Object.keys(bindings))('a blocking send over %s returns the prompt; answered by stream, the turn ends', async (binding) => {
    const client = await bindings[binding]!();
    const asked = asTask(await client.sendMessage(sendRequest('template: a VPC')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const input = promptOf(asked);
    expect(input).toMatchObject({ kind: 'permission', requestTaskId: asked.id, prompt: PERMISSION_PROMPT });
    expect(input?.options.map((option) => option.id)).toEqual(['allow_once', 'deny']);
    expect(asked.history.map((message) => textOf(message))).toEqual(['template: a VPC', 'Drafting main.tf. ']);
    expect(asked.artifacts).toEqual([]);

    const answered = (
      await collect(client.sendMessageStream(permissionAnswer(input!, 'allow_once', { taskId: asked.id, contextId: asked.contextId })))
    ).map(outline);
    expect(answered).toContain('artifactUpdate');

    const after = await client.getTask({ tenant: '', id: asked.id, historyLength: undefined });
    expect(after.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(promptOf(after)).toBeUndefined();
    expect(after.artifacts.map((artifact) => artifact.name)).toEqual(['main.tf']);
    expect(textOf(after.history.at(-1))).toBe('Wrote main.tf.');
  });

  // iac-code as captured never answers a blocking SendMessage that answers its prompt, and the prompt stays unanswered.
  it.each(Object.keys(bindings))('a blocking answer over %s returns the turn as it ended', async (binding) => {
    const client = await bindings[binding]!();
    const asked = asTask(await client.sendMessage(sendRequest('template: a VPC')));
    const input = promptOf(asked);
    expect(input?.kind).toBe('permission');

    const ended = asTask(await client.sendMessage(permissionAnswer(input!, 'allow_once', { taskId: asked.id, contextId: asked.contextId })));
    expect(ended.id).toBe(asked.id);
    expect(ended.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(promptOf(ended)).toBeUndefined();
    expect(ended.artifacts.map((artifact) => artifact.name)).toEqual(['main.tf']);
    expect(textOf(ended.history.at(-1))).toBe('Wrote main.tf.');
    expect(textOf(ended.history[0])).toBe('template: a VPC');
  });
});
