/**
 * The status message that gives way is moved into the history (as the SDKs' task managers do) unless the agent's
 * history holds it already, as an a2a-js 1.x agent's does: there it is the agent's last message. iac-code reuses
 * its message ids in every turn (`<taskId>-message` for each chunk, `<taskId>-2` for the final text), so a turn
 * ending as an earlier one did ("Done.") held a message identical to the earlier turn's: that was taken for
 * "held already", and the turn's last chunk and final text were missing from the record (ListTasks, push bodies)
 * until the next whole answer.
 */
import { describe, expect, it } from 'vitest';
import { foldEvent, foldEvents } from '../../src/core/task-registry/fold.js';
import type { Message, StreamResponse, Task, TaskState } from '../../src/model/index.js';

const said = (messageId: string, role: Message['role'], text: string): Message => ({ messageId, role, taskId: 't-1', parts: [{ text }] });
const update = (state: TaskState, message?: Message): StreamResponse => ({
  statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state, ...(message ? { message } : {}) } },
});
const texts = (task: Task | undefined): string[] => (task?.history ?? []).map((message) => message.parts.map((part) => part.text).join(''));

/** One iac-code turn as streamed: its chunks under one id, the final text under another, then input-required. */
const turn = (chunks: string[], final: string): StreamResponse[] => [
  update('TASK_STATE_WORKING'),
  ...chunks.map((chunk) => update('TASK_STATE_WORKING', said('t-1-message', 'ROLE_AGENT', chunk))),
  update('TASK_STATE_WORKING', said('t-1-2', 'ROLE_AGENT', final)),
  update('TASK_STATE_INPUT_REQUIRED'),
];

describe('a turn of iac-code that ends as the one before it did', () => {
  const opening = said('u-1', 'ROLE_USER', 'template: a VPC');
  const followUp = said('u-2', 'ROLE_USER', 'now a subnet');
  const start: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' }, history: [opening] };
  const events = [...turn(['Planning. ', 'Done.'], 'Done.'), { message: followUp }, ...turn(['Planning. ', 'Done.'], 'Done.')];
  const turnTexts = ['Planning. ', 'Done.', 'Done.'];

  it('keeps a last chunk alike to the one before it (a run of one id is chunks)', () => {
    const alike = [...turn(['Planning.', '\n', '\n'], 'Planning.\n\n')];
    const expected = ['template: a VPC', 'Planning.', '\n', '\n', 'Planning.\n\n'];
    expect(texts(alike.reduce<Task | undefined>((task, event) => foldEvent(task, event, 100), start))).toEqual(expected);
    expect(texts(foldEvents(start, alike, 100))).toEqual(expected);
  });

  it('keeps its last chunk and its final text, folded one event at a time and as a batch', () => {
    const expected = ['template: a VPC', ...turnTexts, 'now a subnet', ...turnTexts];
    expect(texts(events.reduce<Task | undefined>((task, event) => foldEvent(task, event, 100), start))).toEqual(expected);
    expect(texts(foldEvents(start, events, 100))).toEqual(expected);
  });
});
