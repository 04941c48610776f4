import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../src/core/task-registry/fold.js';
import type { Message, Task } from '../../src/model/index.js';
import { answeredTask, answerOfTask } from '../../src/translate/task-stream.js';

const message = (messageId: string, text: string, role: Message['role'] = 'ROLE_AGENT'): Message => ({ messageId, role, parts: [{ text }] });

describe("an older agent's answer given as a Message of its task", () => {
  const answer = message('answer', 'three VPCs');
  const working: Task = {
    id: 't1',
    contextId: 'c1',
    status: { state: 'TASK_STATE_WORKING', message: message('progress', 'looking') },
    history: [message('ask', 'how many VPCs?', 'ROLE_USER')],
    artifacts: [{ artifactId: 'a1', parts: [{ text: 'notes' }] }],
  };

  it('answered blocking (answeredTask) is the Task the same turn streamed folds to (answerOfTask)', () => {
    const streamed = foldEvents(working, [answerOfTask({ taskId: 't1', contextId: 'c1' }, answer)], 1000);
    expect(answeredTask(working, answer)).toEqual(streamed);
    expect(streamed?.status).toEqual({ state: 'TASK_STATE_COMPLETED', message: { ...answer, taskId: 't1', contextId: 'c1' } });
    expect(streamed?.history?.map((entry) => entry.messageId)).toEqual(['ask', 'progress']);
  });

  it('over a task whose history holds its status message already (a2a-js files it there): the message once, as streamed', () => {
    const filed: Task = { ...working, history: [...(working.history ?? []), working.status.message!] };
    const streamed = foldEvents(filed, [answerOfTask({ taskId: 't1', contextId: 'c1' }, answer)], 1000);
    expect(answeredTask(filed, answer)).toEqual(streamed);
    expect(answeredTask(filed, answer).history?.map((entry) => entry.messageId)).toEqual(['ask', 'progress']);
  });

  it('over a task known by its ids alone: COMPLETED with the answer, in the answer context when the task names none', () => {
    const bare: Task = { id: 't2', status: { state: 'TASK_STATE_WORKING' } };
    const answered = answeredTask(bare, { ...answer, contextId: 'c2' });
    expect(answered).toEqual({ id: 't2', status: { state: 'TASK_STATE_COMPLETED', message: { ...answer, taskId: 't2', contextId: 'c2' } } });
  });
});
