/**
 * A 1.0 caller's answer to iac-code's permission prompt (allow_once) is in the task's history once, right after
 * what the agent said before asking, whether the prompting stream stays open while the prompt waits (as
 * captured: the answer rides along on the paused turn, whose stream records it, open-streams.ts) or ends by
 * itself (newer servers). It was missing when the prompting stream stayed open: only the stream that leads
 * a task recorded, and the answer was only on the other one (recording.ts). The official a2a-js 1.x client.
 */
import { Role, TaskState, type Task, type TaskStatusUpdateEvent } from 'a2a-sdk-1';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway } from '../../support/gateway.js';
import { StreamReader, collect, connect, listRequest, permissionAnswer, sendRequest, textOf } from '../../support/sdk-v1-client.js';

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of opened.reverse()) await server.close();
});

/** The history as who said what: the answer by its messageId. */
const said = (task: Task | undefined, answerId: string): string[] =>
  (task?.history ?? []).map((message) =>
    message.messageId === answerId ? 'answer' : `${message.role === Role.ROLE_USER ? 'user' : 'agent'}: ${textOf(message)}`,
  );

describe.each(['open', 'parked'] as const)('iac-code whose permission prompt waits %s', (permissionWait) => {
  it("has the user's answer in the task's history once, after what the agent said before asking", async () => {
    const fake = await startFakeIacCode({
      permissionWait,
      script: { before: ['Drafting main.tf. '], after: ['Wrote main.tf.'], artifact: { filename: 'main.tf' }, permission: true },
    });
    opened.push(fake);
    const gateway = await startTestGateway({ upstream: { url: fake.url } });
    opened.push(gateway);
    const { client } = await connect(gateway.url, 'JSONRPC');
    const turn = new StreamReader(client.sendMessageStream(sendRequest('template: a VPC')));
    let prompt: TaskStatusUpdateEvent | undefined;
    while (!prompt) {
      const payload = await turn.expectNext();
      if (payload.$case === 'statusUpdate' && payload.value.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) prompt = payload.value;
    }
    const input = (prompt.metadata as { iac_code: { input: Record<string, string> } }).iac_code.input;
    const answer = permissionAnswer(input, 'allow_once', { contextId: prompt.contextId });
    await collect(client.sendMessageStream(answer));
    await turn.rest();

    const got = await client.getTask({ tenant: '', id: prompt.taskId, historyLength: undefined });
    const listed = (await client.listTasks(listRequest({ contextId: prompt.contextId }))).tasks.find((task) => task.id === prompt.taskId);
    // iac-code's history says a turn's last words twice: its chunk, then the final text (assistantFinal).
    const expected = ['user: template: a VPC', 'agent: Drafting main.tf. ', 'answer', 'agent: Wrote main.tf.', 'agent: Wrote main.tf.'];
    expect([said(got, answer.message!.messageId), said(listed, answer.message!.messageId)]).toEqual([expected, expected]);
  });
});
