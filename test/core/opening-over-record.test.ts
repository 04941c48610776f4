/**
 * A Task event folded over the record of its task (overRecord, task-registry/fold.ts) keeps the record's opening
 * message first when the agent's Task lacks it: iac-code's SubscribeToTask opens with its stored Task, which never
 * holds the message that opened the task, and a caller who resubscribed after a disconnect lost it from the record
 * for good (ListTasks, push bodies, and every GetTask after, which takes it from the record: first-message.ts).
 */
import { describe, expect, it } from 'vitest';
import { foldEvent, foldEvents } from '../../src/core/task-registry/fold.js';
import type { Message, StreamResponse, Task } from '../../src/model/index.js';

const said = (role: Message['role'], text: string, messageId = `${role}-${text}`): Message => ({ messageId, role, taskId: 't-1', parts: [{ text }] });
const task = (history: Message[] | undefined): Task => ({
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_WORKING' },
  ...(history ? { history } : {}),
});
const texts = (folded: Task | undefined): string[] => (folded?.history ?? []).map((message) => message.parts[0]?.text ?? '');

/** The fold of `event` over `record`, one event at a time and as a batch: both must agree. */
const both = (record: Task, event: StreamResponse, limit: number): string[][] => [
  texts(foldEvent(record, event, limit)),
  texts(foldEvents(record, [event], limit)),
];

const opening = said('ROLE_USER', 'template: a VPC');

describe('the opening message, a Task event folded over the record', () => {
  it("is kept first when the agent's Task holds nothing yet (a subscription's opening Task, early in the turn)", () => {
    expect(both(task([opening]), { task: task([]) }, 100)).toEqual([['template: a VPC'], ['template: a VPC']]);
    expect(both(task([opening]), { task: task(undefined) }, 100)).toEqual([['template: a VPC'], ['template: a VPC']]);
  });

  it("is kept first when the agent's Task holds the turn so far without it", () => {
    const record = task([opening, said('ROLE_AGENT', 'Planning. ', 'x')]);
    const agents = task([said('ROLE_AGENT', 'Planning. ', 'x'), said('ROLE_AGENT', 'Writing. ', 'x')]);
    const expected = ['template: a VPC', 'Planning. ', 'Writing. '];
    expect(both(record, { task: agents }, 100)).toEqual([expected, expected]);
  });

  it("is kept first in a later turn, the caller's follow-up where it was said", () => {
    const [r1, r2] = [said('ROLE_AGENT', 'Done.', 'x'), said('ROLE_AGENT', 'Subnet done.', 'y')];
    const followUp = said('ROLE_USER', 'now a subnet');
    const record = task([opening, r1, followUp]);
    const expected = ['template: a VPC', 'Done.', 'now a subnet', 'Subnet done.'];
    expect(both(record, { task: task([r1, followUp, r2]) }, 100)).toEqual([expected, expected]);
  });

  it('is not put twice when the agent holds it', () => {
    const reply = said('ROLE_AGENT', 'Done.');
    expect(both(task([opening]), { task: task([opening, reply]) }, 100)).toEqual([
      ['template: a VPC', 'Done.'],
      ['template: a VPC', 'Done.'],
    ]);
  });

  it('is not taken from a record the store cut at its front (its first message is not the opening one)', () => {
    const followUp = said('ROLE_USER', 'now a subnet');
    const record = task([followUp, said('ROLE_AGENT', 'a'), said('ROLE_AGENT', 'b')]);
    expect(both(record, { task: task([said('ROLE_AGENT', 'c')]) }, 3)).toEqual([['c'], ['c']]);
  });
});
