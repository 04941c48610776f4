/**
 * A 1.0 caller may answer iac-code's permission prompt naming the task alone (taskId, no contextId): A2A lets a
 * client leave the context out, the agent inferring it from the task. iac-code's newer servers refuse such an
 * answer (-32602 "Permission response correlation fields are required.", docs/iac-code.md) and the turn stays
 * paused at the prompt. The gateway sends it with the task's recorded context (task-context.ts), without
 * `upstream.workspace-root` too, on every binding (the official a2a-js 1.x client), whichever way the prompt waits.
 */
import { TaskState, type TaskStatusUpdateEvent } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { StreamReader, collect, connect, outline, permissionAnswer, sendRequest } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

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

  it.each(Object.keys(bindings))('takes an answer over %s that names its task but not its context, and the turn goes on', async (binding) => {
    const client = await bindings[binding]!();
    const turn = new StreamReader(client.sendMessageStream(sendRequest('template: a VPC')));
    let prompt: TaskStatusUpdateEvent | undefined;
    while (!prompt) {
      const payload = await turn.expectNext();
      if (payload.$case === 'statusUpdate' && payload.value.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) prompt = payload.value;
    }
    const input = (prompt.metadata as { iac_code: { input: Record<string, string> } }).iac_code.input;

    const answered = (await collect(client.sendMessageStream(permissionAnswer(input)))).map(outline);
    await turn.close();
    expect(answered).toContain('artifactUpdate');
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as { params: { message: { taskId: string; contextId?: string } } };
    expect(sent.params.message).toMatchObject({ taskId: prompt.taskId, contextId: prompt.contextId });
  });
});
