/**
 * A client that keeps a finished task's id sends its user's next message to that task; a real a2a-js 1.x agent
 * refuses it (-32004 "Task X is in a terminal state (completed) and cannot be modified"). A Chinese or Japanese user
 * reads that refusal in their language, over message/send and message/stream, under the same code; an English one
 * reads the agent's words, as a refused cancel is told (task-call-words.ts).
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/index.js';
import { rpc, startFacadeGateway, userMessage } from '../../support/facade.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from './script-player-agent.js';

let agent: RunningTestAgent;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startScriptPlayer({ 部署: { steps: [{ status: TaskState.TASK_STATE_COMPLETED, said: '部署完成。' }] } });
  gateway = await startFacadeGateway({ upstream: { url: agent.url } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

/** A task the agent finished, in a conversation of its own. */
async function finishedTask(): Promise<{ taskId: string; contextId: string }> {
  const done = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '部署' }) });
  expect(done.body.result.status.state).toBe('completed');
  return { taskId: done.body.result.id, contextId: done.body.result.contextId };
}

const METHODS = [
  ['message/send', ''],
  ['message/stream', '/stream'],
] as const;

describe('a message to a finished task the client named', () => {
  it.each([
    ['zh', '再部署一次'],
    ['ja', 'もう一度デプロイしてください'],
  ] as const)("%s: refused in the user's language, over message/send and message/stream", async (language, text) => {
    for (const [method, path] of METHODS) {
      const ids = await finishedTask();
      const answer = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text, ...ids }) });
      expect(answer.body.error, method).toEqual({ code: -32004, message: facadeWords(language).taskFinished });
    }
  });

  it('zh: a task id the client chose for the task, which the agent knows by its own', async () => {
    for (const [method, path] of METHODS) {
      const taskId = `client-task-${randomUUID()}`;
      const done = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '部署', taskId }) });
      expect(done.body.result).toMatchObject({ id: taskId, status: { state: 'completed' } });
      const answer = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text: '再部署一次', taskId }) });
      expect(answer.body.error, method).toEqual({ code: -32004, message: facadeWords('zh').taskFinished });
    }
  });

  it("en: the agent's words, naming the task", async () => {
    for (const [method, path] of METHODS) {
      const ids = await finishedTask();
      const answer = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text: 'Deploy it again please', ...ids }) });
      expect(answer.body.error, method).toEqual({
        code: -32004,
        message: `Task ${ids.taskId} is in a terminal state (completed) and cannot be modified`,
      });
    }
  });
});
