import { describe, expect, it } from 'vitest';
import type { SendMessageRequest, StreamResponse } from '../../../../src/model/index.js';
import { inNewTaskIfGone } from '../../../../src/surfaces/v025/turn/gone-task.js';
import { collect } from '../../../support/collect.js';

const TOLD = 'The agent started afresh.';
const request: SendMessageRequest = { message: { messageId: 'm', role: 'ROLE_USER', contextId: 'C', parts: [{ text: 'hi' }] } };
const refusal = (taskId: string, contextId: string): StreamResponse => ({
  statusUpdate: {
    taskId,
    contextId,
    status: { state: 'TASK_STATE_FAILED', message: { messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'ValueError: A2A context expired' }] } },
  },
});
const opened = (taskId: string, contextId: string): StreamResponse => ({
  task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } },
});
const answer = (taskId: string, contextId: string): StreamResponse => ({
  statusUpdate: {
    taskId,
    contextId,
    status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'answered' }] } },
  },
});

/** The text of the facade's words the events carry, in order, with the task each is told under. */
const told = (events: StreamResponse[]) =>
  events.flatMap((event) =>
    'statusUpdate' in event && event.statusUpdate.status.message?.parts[0]?.text?.startsWith(TOLD) ? [event.statusUpdate.taskId] : [],
  );

/** An iac-code that refuses the first `refusing` contexts a turn goes to (C, then the fresh ones), and answers the next. */
function refusingContexts(refusing: number, answers: (taskId: string, contextId: string) => StreamResponse[]) {
  const sent: SendMessageRequest[] = [];
  const run = async function* (asked: SendMessageRequest): AsyncGenerator<StreamResponse> {
    sent.push(asked);
    const contextId = asked.message.contextId!;
    const id = `T${sent.length}`;
    if (sent.length <= refusing) {
      yield opened(id, contextId);
      yield refusal(id, contextId);
      return;
    }
    yield* answers(id, contextId);
  };
  return { sent, run };
}

describe('the words that say a turn moved to a fresh context started afresh', () => {
  it("follow the agent's opening of the fresh context's task, once, also when a fresh context was refused in turn", async () => {
    const { sent, run } = refusingContexts(2, (id, contextId) => [opened(id, contextId), answer(id, contextId)]);
    const events = await collect(inNewTaskIfGone(request, run, { startedAfresh: TOLD }));
    expect(sent).toHaveLength(3);
    const fresh = sent[2]!.message.contextId!;
    expect(events[0]).toEqual(opened('T3', fresh));
    expect(told(events)).toEqual(['T3']);
    expect(told(events.slice(1, 2))).toEqual(['T3']);
    expect(events.at(-1)).toEqual(answer('T3', fresh));
  });

  it('open the reply of a turn answered in one finished Task, which is replayed as its events', async () => {
    const whole = (id: string, contextId: string): StreamResponse[] => [
      {
        task: {
          id,
          contextId,
          status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'answered' }] } },
        },
      },
    ];
    const { run } = refusingContexts(1, whole);
    const events = await collect(inNewTaskIfGone(request, run, { startedAfresh: TOLD }));
    expect('task' in events[0]! && events[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(told(events.slice(1, 2))).toEqual(['T2']);
    expect(JSON.stringify(events.at(-1))).toContain('answered');
  });

  it('note the turn under the fresh task and the message that opened it before anything goes out; their event as it goes out', async () => {
    const { sent, run } = refusingContexts(1, (id, contextId) => [opened(id, contextId), answer(id, contextId)]);
    const noted: Array<{ turn: unknown; before: number } | { told: string[]; before: number }> = [];
    let yielded = 0;
    const toldAfresh = {
      noteTurn: async (at: unknown) => void noted.push({ turn: at, before: yielded }),
      noteTold: (event: StreamResponse) => void noted.push({ told: told([event]), before: yielded }),
    };
    for await (const _event of inNewTaskIfGone(request, run, { startedAfresh: TOLD, toldAfresh })) yielded++;
    expect(sent).toHaveLength(2);
    // Each once: the turn before its opening went out; the words' own event after the opening alone went out.
    expect(noted).toEqual([
      { turn: { taskId: 'T2', messageId: 'm' }, before: 0 },
      { told: ['T2'], before: 1 },
    ]);
  });

  it('are not told when the turn stays in its context', async () => {
    const { run } = refusingContexts(0, (id, contextId) => [opened(id, contextId), answer(id, contextId)]);
    expect(told(await collect(inNewTaskIfGone(request, run, { startedAfresh: TOLD })))).toEqual([]);
  });
});
