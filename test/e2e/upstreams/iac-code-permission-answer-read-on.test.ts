/**
 * A caller that answers iac-code's permission prompt without waiting (a 1.0 client's `returnImmediately`, a Bailian
 * caller's `blocking: false`) is answered at once while iac-code works on. The gateway reads the rest of that turn
 * anyway (iac-code answers a permission answer only on a stream: permission-answer-stream.ts), but read it for
 * nobody: its record kept the task working, without the turn's words. Once iac-code forgot the task (a restart), a
 * later GetTask, tasks/get and ListTasks, answered from the record, showed the turn still working and no reply,
 * though it had ended with its file written (and after `tasks.lost-after-ms`, failed: "The agent no longer knows
 * this task"). The rest is read as a streamed turn's (core/read-on.ts), so the record ends the turn with its words.
 * The official a2a-js 1.x client and the facade, against the fake iac-code, whichever way its prompt waits.
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { asTask, connect, listRequest, permissionAnswer, sendRequest, textOf, type PermissionPromptIds } from '../../support/sdk-v1-client.js';

const LAST_WORDS = 'Wrote main.tf for you.';

/** The prompt a task waits on, as a 1.0 caller reads it from the task's metadata. */
const promptOf = (task: Task): PermissionPromptIds | undefined =>
  (task.metadata as { iac_code?: { input?: PermissionPromptIds } } | undefined)?.iac_code?.input;

describe.each(['open', 'parked'] as const)('iac-code whose permission prompt waits %s, answered by a caller that does not wait', (permissionWait) => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    // Paced, so the turn is still at work when its caller is answered.
    fake = await startFakeIacCode({
      permissionWait,
      frameDelayMs: 50,
      script: { before: ['Drafting main.tf. '], after: ['Wrote ', 'main.tf ', 'for you.'], artifact: { filename: 'main.tf' }, permission: true },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  /** The answer's stream to iac-code ran to the turn's end; then iac-code restarts, forgetting every task. */
  async function turnEndedThenForgotten(taskId: string): Promise<void> {
    const answering = fake.rpcRequests('SendStreamingMessage').find((request) => {
      const body = request.body as { params: { message: { taskId?: string; parts: Array<{ data?: { kind?: string } }> } } };
      return body.params.message.taskId === taskId && body.params.message.parts[0]?.data?.kind === 'permission';
    });
    expect(await answering?.closed).toBe('finished');
    fake.restart();
  }

  it('a 1.0 client: GetTask and ListTasks show the turn as it ended, its words and its file', async () => {
    const { client } = await connect(gateway.url, 'JSONRPC');
    const asked = asTask(await client.sendMessage(sendRequest('template: a VPC')));
    const answer = permissionAnswer(promptOf(asked)!, 'allow_once', { taskId: asked.id, contextId: asked.contextId });
    answer.configuration = { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined };
    expect(asTask(await client.sendMessage(answer)).id).toBe(asked.id);
    await turnEndedThenForgotten(asked.id);

    const read = async () => {
      const task = await client.getTask({ tenant: '', id: asked.id, historyLength: undefined });
      return { state: task.status?.state, last: textOf(task.history.at(-1)), files: task.artifacts.map((artifact) => artifact.name) };
    };
    await expect.poll(read, { timeout: 5_000 }).toEqual({ state: TaskState.TASK_STATE_INPUT_REQUIRED, last: LAST_WORDS, files: ['main.tf'] });
    const listed = await client.listTasks(listRequest({ contextId: asked.contextId }));
    expect(listed.tasks.map((task) => [task.status?.state, textOf(task.history.at(-1))])).toEqual([
      [TaskState.TASK_STATE_INPUT_REQUIRED, LAST_WORDS],
    ]);
  });

  it('a Bailian caller: tasks/get shows the reply "Allow once" led to', async () => {
    const asking = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Create a VPC' }) });
    const contextId = results(await asking.rest())[0].contextId as string;
    const answer = await rpc(gateway.url, 'message/send', {
      message: userMessage({ text: 'Allow once', contextId }),
      configuration: { blocking: false },
    });
    expect(answer.body.error).toBeUndefined();
    const taskId = answer.body.result.id as string;
    await turnEndedThenForgotten(taskId);

    const read = async () => {
      const task = (await rpc(gateway.url, 'tasks/get', { id: taskId })).body.result;
      return { state: task.status.state, reply: sentText(task) };
    };
    await expect.poll(read, { timeout: 5_000 }).toEqual({ state: 'completed', reply: `main.tf (text/plain, 14 bytes)\n${LAST_WORDS}` });
  });
});
