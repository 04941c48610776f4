/**
 * In front of an a2a-js 1.x agent, a 0.2.5 caller reads its task in 0.2.5's words: tasks/resubscribe on a finished
 * task is refused naming its state as 0.2.5 does ("completed", not the agent's 1.0 enum number "3"), and tasks/get
 * shows the reply message/send showed, and the task's messages without the gateway's own part metadata
 * (`metadata.a2a_bridge`, kept for the 1.0 fields 0.2.5 parts cannot carry).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage } from '../../support/facade.js';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';

describe('a finished task of an a2a-js 1.x agent, read by a 0.2.5 caller', () => {
  let gateway: TestGateway;
  let taskId: string;
  let sentReply: unknown;
  beforeAll(async () => {
    gateway = await startSdkGateway();
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'hello' }) });
    expect(sent.body.result.status.state).toBe('completed');
    taskId = sent.body.result.id;
    sentReply = sent.body.result.artifacts.map((artifact: any) => artifact.parts);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('tasks/resubscribe is refused naming the state "completed"', async () => {
    const answer = await rpc(`${gateway.url}/stream`, 'tasks/resubscribe', { id: taskId });
    expect(answer.body.error).toEqual({ code: -32004, message: `Task ${taskId} is in a terminal state (completed) and cannot be subscribed to.` });
  });

  it("tasks/get: the reply message/send showed, the agent's words without the gateway's part metadata", async () => {
    const answer = await rpc(gateway.url, 'tasks/get', { id: taskId });
    const task = answer.body.result;
    // Under `bailian` the agent's last words are the reply's, as message/send shows them: not on the status too.
    expect(task.status.message).toBeUndefined();
    expect(task.artifacts.map((artifact: any) => artifact.parts)).toEqual(sentReply);
    expect(task.history.at(-1).parts).toEqual([{ kind: 'text', text: 'SDK echo (turn 1): hello' }]);
    expect(
      task.artifacts
        .flatMap((artifact: any) => artifact.parts)
        .map((part: any) => part.text)
        .join(''),
    ).toBe('SDK echo (turn 1): hello');
    expect(answer.text).not.toContain('a2a_bridge');
  });
});
