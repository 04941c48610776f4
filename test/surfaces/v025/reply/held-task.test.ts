import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task } from '../../../../src/model/index.js';
import { createTurnReply } from '../../../../src/surfaces/v025/reply/index.js';
import { bailian, options, readText, status } from './support.js';

/** An opening Task that would end the turn if nothing followed it: held until the agent says more, or closes. */
const asking: Task = {
  id: 'T',
  contextId: 'C',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'Which region?' }] } },
};
const permission: Task = {
  id: 'T',
  contextId: 'C',
  status: { state: 'TASK_STATE_INPUT_REQUIRED' },
  metadata: {
    iac_code: {
      permission: { pending: true },
      input: {
        kind: 'permission',
        requestTaskId: 'T',
        inputId: 'p-1',
        toolUseId: 'tu',
        prompt: 'Run bash?',
        options: [
          { id: 'allow_once', label: 'Allow once' },
          { id: 'deny', label: 'Deny' },
        ],
      },
    },
  },
};

function turn(first: Task, ...then: StreamResponse[]) {
  return turnAfter(undefined, first, ...then);
}

/** `previous`: the task as its caller was shown it before the turn. */
function turnAfter(previous: Task | undefined, first: Task, ...then: StreamResponse[]) {
  const reply = createTurnReply(options(bailian, previous ? { previous } : {}));
  const out = [first, ...then].flatMap((event) => reply.push('id' in event ? { task: event } : event));
  return { reply, out };
}

describe('a held opening Task', () => {
  it('is the answer when the stream closes after it', () => {
    const { reply, out } = turn(asking);
    const closed = [...out, ...reply.close()];
    expect(readText(closed)).toBe('Which region?');
    expect(closed.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } }); // how Bailian shows a question
  });

  it('is not shown when the agent goes on with the task', () => {
    const { reply, out } = turn(asking, status('TASK_STATE_WORKING', 'Deploying in cn-hangzhou.'), status('TASK_STATE_COMPLETED'));
    expect(readText([...out, ...reply.close()])).toBe('Deploying in cn-hangzhou.');
  });

  it('keeps its question when the stream then breaks off: shown before why the turn failed', () => {
    const { reply, out } = turn(asking);
    const failed = [...out, ...reply.brokeOff()];
    expect(readText(failed)).toMatch(/^Which region\?\n.+/);
    expect(failed.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
  });

  it('asking by the message its caller read before the turn, the question they just answered: only why the turn failed', () => {
    const { reply, out } = turnAfter(asking, asking);
    const failed = [...out, ...reply.fail('The agent has not answered your message yet.')];
    expect(readText(failed)).toBe('The agent has not answered your message yet.');
    expect(failed.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
  });

  it('asking by another message than its caller read before the turn: its question still shown before why it failed', () => {
    const before: Task = {
      ...asking,
      status: { ...asking.status, message: { messageId: 'q-0', role: 'ROLE_AGENT', parts: [{ text: 'Which VPC?' }] } },
    };
    const { reply, out } = turnAfter(before, asking);
    expect(readText([...out, ...reply.fail('The agent did not answer in time')])).toBe('Which region?\nThe agent did not answer in time');
  });

  it("keeps iac-code's permission prompt when the turn fails (a time-out)", () => {
    const { reply, out } = turn(permission);
    const text = readText([...out, ...reply.fail('The agent did not answer in time')]);
    expect(text).toMatch(/^Run bash\?\n.*Allow once.*Deny.*\nThe agent did not answer in time/s);
  });
});
