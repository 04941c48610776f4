/**
 * What the caller was shown of a turn, noted event by event (turn-tracker.ts): what a recovery after a
 * broken stream reads the rest from. The held status matters most: it alone lets a follow-up whose stream
 * broke right after the waiting task it opened with be followed again, so it must be set for that opening
 * only, and let go as soon as anything else comes.
 */
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task, TaskState, TaskStatusUpdateEvent } from '../../../../src/model/index.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';

const agent = (text: string, messageId = 'T-message'): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
/** A new turn's message (no task named) and a follow-up's, naming task T. */
const OPENING: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '帮我创建VPC模板' }] };
const FOLLOW_UP: Message = { messageId: 'm-2', role: 'ROLE_USER', taskId: 'T', contextId: 'C', parts: [{ text: '是' }] };

const QUESTION = agent('要写入 main.tf 吗？', 'T-question');
const taskEvent = (state: TaskState, id = 'T'): StreamResponse => ({
  task: { id, contextId: 'C', status: { state, ...(state === 'TASK_STATE_INPUT_REQUIRED' ? { message: QUESTION } : {}) } },
});
const statusEvent = (state: TaskState, message?: Message, metadata?: Record<string, unknown>): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state, ...(message ? { message } : {}) }, ...(metadata ? { metadata } : {}) },
});
const fileEvent = (artifactId: string): StreamResponse => ({
  artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId, parts: [{ text: `# ${artifactId}\n` }] } },
});

/** A tracker that noted `events`, in order, for a turn that sent `sent`. */
function tracked(events: StreamResponse[], sent: Message = FOLLOW_UP, previous?: Task): TurnTracker {
  const tracker = new TurnTracker(previous ? { sent, previous } : { sent });
  for (const event of events) tracker.note(event);
  return tracker;
}

describe('TurnTracker: the task and its state', () => {
  it('nothing noted: no task, no state, nothing passed', () => {
    const tracker = tracked([], OPENING);
    expect(tracker).toMatchObject({ taskId: undefined, state: undefined, heldStatus: undefined });
    expect(tracker.soFar()).toEqual({ sent: OPENING, passed: [], passedFiles: [] });
  });

  it('the task id and the latest state, from tasks and status updates alike', () => {
    const tracker = tracked([taskEvent('TASK_STATE_SUBMITTED'), statusEvent('TASK_STATE_WORKING')], OPENING);
    expect(tracker).toMatchObject({ taskId: 'T', state: 'TASK_STATE_WORKING' });
    tracker.note(statusEvent('TASK_STATE_INPUT_REQUIRED', QUESTION));
    expect(tracker.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('a file carries no state: the state noted before stays', () => {
    const tracker = tracked([statusEvent('TASK_STATE_WORKING'), fileEvent('A')], OPENING);
    expect(tracker).toMatchObject({ taskId: 'T', state: 'TASK_STATE_WORKING' });
  });

  it('an event without a task id keeps the one noted before', () => {
    // A bare message (an agent that answers without a task) names none.
    const tracker = tracked([statusEvent('TASK_STATE_WORKING'), { message: agent('好的') }], OPENING);
    expect(tracker.taskId).toBe('T');
  });
});

describe('TurnTracker: what the stream carried', () => {
  it('the text of each agent status message, in order, parts joined; not a user’s, not an update without one', () => {
    const twoParts: Message = { messageId: 'T-message', role: 'ROLE_AGENT', parts: [{ text: '我来' }, { text: '创建' }] };
    const tracker = tracked(
      [
        taskEvent('TASK_STATE_SUBMITTED'),
        statusEvent('TASK_STATE_WORKING', agent('好的，')),
        statusEvent('TASK_STATE_WORKING', twoParts),
        statusEvent('TASK_STATE_WORKING', { messageId: 'm-echo', role: 'ROLE_USER', parts: [{ text: '帮我创建VPC模板' }] }),
        statusEvent('TASK_STATE_WORKING', undefined, { iac_code: { tool: { status: 'started' } } }),
        statusEvent('TASK_STATE_WORKING', agent('VPC模板。')),
      ],
      OPENING,
    );
    expect(tracker.soFar().passed).toEqual(['好的，', '我来创建', 'VPC模板。']);
  });

  it('the ids of the files, each once, in the order they first came: a file in many chunks is noted once', () => {
    const tracker = tracked([fileEvent('A'), fileEvent('B'), fileEvent('A')], OPENING);
    expect(tracker.soFar().passedFiles).toEqual(['A', 'B']);
  });

  it('the parts of each file as the caller holds them: appended chunks put together, a chunk not appended starting it again', () => {
    const appended = (artifactId: string, text: string): StreamResponse => ({
      artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId, parts: [{ text }] }, append: true },
    });
    const tracker = tracked([fileEvent('A'), appended('A', '}\n'), fileEvent('B'), appended('C', 'x'), fileEvent('B'), appended('B', 'y')], OPENING);
    const soFar = tracker.soFar();
    // C: chunks appended to a file the turn did not begin: what the caller holds of it is not known.
    expect(soFar.shownFiles).toEqual(
      new Map([
        ['A', [{ text: '# A\n' }, { text: '}\n' }]],
        ['B', [{ text: '# B\n' }, { text: 'y' }]],
        ['C', undefined],
      ]),
    );
    tracker.note(appended('A', 'z'));
    expect(soFar.shownFiles?.get('A')).toHaveLength(2);
    expect(tracked([taskEvent('TASK_STATE_WORKING')], OPENING).soFar()).not.toHaveProperty('shownFiles');
  });

  it('a file shown before the turn (a cut turn’s rest): chunks appended to it go on from what was shown, which stays as it was', () => {
    const before = [{ text: '# A\n' }];
    const cutTurn = { sent: FOLLOW_UP, passed: [], passedFiles: ['A'], shownFiles: new Map([['A', before]]) };
    const tracker = new TurnTracker(cutTurn);
    tracker.note({ artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'A', parts: [{ text: '}\n' }] }, append: true } });
    tracker.note(fileEvent('B'));
    expect(tracker.soFar()).toMatchObject({
      passedFiles: ['A', 'B'],
      shownFiles: new Map([
        ['A', [{ text: '# A\n' }, { text: '}\n' }]],
        ['B', [{ text: '# B\n' }]],
      ]),
    });
    expect(before).toEqual([{ text: '# A\n' }]);
    expect(cutTurn.shownFiles).toEqual(new Map([['A', [{ text: '# A\n' }]]]));
  });

  it('the last status update the caller was shown, whole (its metadata too); a file after it does not replace it', () => {
    const tool = { iac_code: { tool: { status: 'started', name: 'write_file' } } };
    const tracker = tracked([statusEvent('TASK_STATE_WORKING', agent('好的，')), statusEvent('TASK_STATE_WORKING', undefined, tool), fileEvent('A')]);
    const last = (statusEvent('TASK_STATE_WORKING', undefined, tool) as { statusUpdate: TaskStatusUpdateEvent }).statusUpdate;
    expect(tracker.soFar().lastStatus).toEqual(last);
  });

  it('no status update yet: no lastStatus at all (a task is not one)', () => {
    expect(tracked([taskEvent('TASK_STATE_WORKING')], OPENING).soFar()).not.toHaveProperty('lastStatus');
  });

  it('soFar: the turn as given (sent, previous) with what was passed; a copy the tracker does not change later', () => {
    const previous: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: QUESTION } };
    const tracker = tracked([statusEvent('TASK_STATE_WORKING', agent('好的，')), fileEvent('A')], FOLLOW_UP, previous);
    const soFar = tracker.soFar();
    expect(soFar).toMatchObject({ sent: FOLLOW_UP, previous, passed: ['好的，'], passedFiles: ['A'] });
    tracker.note(statusEvent('TASK_STATE_WORKING', agent('我来')));
    tracker.note(fileEvent('B'));
    expect(soFar).toMatchObject({ passed: ['好的，'], passedFiles: ['A'] });
    expect(tracker.soFar()).toMatchObject({ passed: ['好的，', '我来'], passedFiles: ['A', 'B'] });
  });
});

describe('TurnTracker: the held status of a follow-up’s waiting opening', () => {
  it.each(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'] as const)(
    'a follow-up’s stream opened by its task still %s: that status is held, and told by soFar',
    (state) => {
      const opening = taskEvent(state);
      const tracker = tracked([opening]);
      const status = (opening as { task: Task }).task.status;
      expect(tracker.heldStatus).toEqual(status);
      expect(tracker.soFar().heldStatus).toEqual(status);
    },
  );

  it.each([
    ['a later status update', statusEvent('TASK_STATE_WORKING', agent('好的，'))],
    ['a later file', fileEvent('A')],
    ['the same waiting task again', taskEvent('TASK_STATE_INPUT_REQUIRED')],
  ])('let go by any later event: %s', (_what, later) => {
    const tracker = tracked([taskEvent('TASK_STATE_INPUT_REQUIRED'), later]);
    expect(tracker.heldStatus).toBeUndefined();
    expect(tracker.soFar()).not.toHaveProperty('heldStatus');
  });

  it.each([
    'TASK_STATE_SUBMITTED',
    'TASK_STATE_WORKING',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_CANCELED',
    'TASK_STATE_REJECTED',
  ] as const)('not held when the opening task is %s: it is not waiting for the caller', (state) => {
    expect(tracked([taskEvent(state)]).heldStatus).toBeUndefined();
  });

  it('not held for a task in no known state: it is not waiting for the caller either', () => {
    // A 0.3 agent's state the gateway does not know reads as UNSPECIFIED (translate/v03/rest.ts): following
    // such a task again until its status changes would read a task that may never say it waits.
    expect(tracked([taskEvent('TASK_STATE_UNSPECIFIED')]).heldStatus).toBeUndefined();
  });

  it('not held when the waiting task comes second', () => {
    const tracker = tracked([statusEvent('TASK_STATE_WORKING'), taskEvent('TASK_STATE_INPUT_REQUIRED')]);
    expect(tracker.heldStatus).toBeUndefined();
  });

  it('not held when the first event is a waiting status update rather than the task', () => {
    expect(tracked([statusEvent('TASK_STATE_INPUT_REQUIRED', QUESTION)]).heldStatus).toBeUndefined();
  });

  it('not held for a turn that named no task (a new turn), nor for another task than the one it named', () => {
    expect(tracked([taskEvent('TASK_STATE_INPUT_REQUIRED')], OPENING).heldStatus).toBeUndefined();
    expect(tracked([taskEvent('TASK_STATE_INPUT_REQUIRED', 'OTHER')]).heldStatus).toBeUndefined();
  });
});

describe('TurnTracker: one per turn, across its attempts', () => {
  it('restart: a refused attempt noted nothing its caller was shown; what a cut turn showed before stays', () => {
    const cutTurn = { sent: FOLLOW_UP, passed: ['第一段'], passedFiles: ['A'], shownFiles: new Map([['A', [{ text: '# A\n' }]]]) };
    const tracker = new TurnTracker(cutTurn);
    const fresh = tracker.soFar();
    for (const event of [taskEvent('TASK_STATE_INPUT_REQUIRED'), statusEvent('TASK_STATE_FAILED', agent('A2A task expired')), fileEvent('A')]) {
      tracker.note(event);
    }
    tracker.restart();
    expect(tracker).toMatchObject({ taskId: undefined, state: undefined, heldStatus: undefined });
    expect(tracker.soFar()).toEqual(fresh);
    // Counted from the attempt's first event again: a waiting opening is held.
    tracker.note(taskEvent('TASK_STATE_INPUT_REQUIRED'));
    expect(tracker.heldStatus).toBeDefined();
  });

  it('sentAs: the same notes, with the message the attempt sent and only the task it went on', () => {
    const previous: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: QUESTION } };
    const tracker = new TurnTracker({ sent: FOLLOW_UP, previous });
    const again: Message = { messageId: 'm-2', role: 'ROLE_USER', contextId: 'C', parts: [{ text: '是' }] };
    const attempt = tracker.sentAs({ sent: again });
    attempt.note(statusEvent('TASK_STATE_WORKING', agent('好的，')));
    expect(tracker.soFar()).toMatchObject({ sent: FOLLOW_UP, previous, passed: ['好的，'] });
    expect(attempt.soFar()).toEqual({ sent: again, passed: ['好的，'], passedFiles: [], lastStatus: expect.anything() });
    expect(attempt).toMatchObject({ taskId: 'T', state: 'TASK_STATE_WORKING', heldStatus: undefined });
  });
});
