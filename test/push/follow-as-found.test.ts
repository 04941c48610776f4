/**
 * A turn answered with the task as the turn found it (a returnImmediately follow-up into a task waiting for input,
 * src/push/as-found.ts), and a turn whose subscription the agent holds open past its end: the follow reads each turn
 * to its own end, and no further, over a scripted port and the real watcher (follow-harness.ts).
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task, TaskState } from '../../src/model/index.js';
import { statusKey } from '../../src/push/event-id.js';
import { caller, setup, task } from './follow-harness.js';

/** The task in `state`, its status stamped at `at` with the agent's message `said`. */
const stamped = (state: TaskState, said: string, at: string): Task => ({
  id: 'T',
  contextId: 'C',
  status: { state, timestamp: at, message: { messageId: `m-${at}`, role: 'ROLE_AGENT', parts: [{ text: said }] } },
});
const asked = stamped('TASK_STATE_INPUT_REQUIRED', 'Which date should I book?', '2026-12-06T10:00:00.000Z');
const askedAgain = stamped('TASK_STATE_INPUT_REQUIRED', 'And which time?', '2026-12-06T10:00:05.000Z');
const booked = stamped('TASK_STATE_COMPLETED', 'Booked.', '2026-12-06T10:00:09.000Z');
const asFound = statusKey(asked.status);
const said = (pushed: StreamResponse[]): string[] =>
  pushed.map((event) => ('task' in event ? (event.task.status.message?.parts[0]?.text ?? '') : '?'));

describe('a follow-up answered with the task as found', () => {
  it('is followed past the last question the agent still shows, to the next one, which alone is pushed', async () => {
    const { follower, calls, delivered } = await setup(
      [
        // The gateway answers a subscription to a task waiting for input with its Task alone: still the last question.
        { events: [{ task: asked }], then: 'end' },
        { events: [{ task: askedAgain }], then: 'end' },
      ],
      [asked],
    );
    void follower.follow({ task: asked }, caller, '', 'msg-monday', asFound);
    expect(said(await delivered())).toEqual(['And which time?']);
    expect(calls).toEqual(['subscribe', 'get', 'subscribe']);
  });

  it('reads the task once the subscription is refused because the turn has finished: the completion is pushed', async () => {
    const { follower, calls, delivered } = await setup([new Error('Task T is in a terminal state')], [booked]);
    void follower.follow({ task: asked }, caller, '', 'msg-nine', asFound);
    expect(said(await delivered())).toEqual(['Booked.']);
    expect(calls).toEqual(['subscribe', 'get']);
  });

  it('an answer that waits for input in another status than the one found ended its turn: not followed', async () => {
    const { follower, calls, delivered } = await setup([]);
    void follower.follow({ task: askedAgain }, caller, '', 'msg-monday', undefined);
    expect(await delivered()).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe("a follow ends at its turn's end", () => {
  it("follows the caller's next turn, sent while the last one's follow still ran, once that follow is done", async () => {
    const { follower, calls, delivered } = await setup([
      { events: [{ task: askedAgain }], then: 'end' },
      { events: [{ task: booked }], then: 'end' },
    ]);
    void follower.follow({ task: task('TASK_STATE_WORKING') }, caller, '', 'msg-monday');
    void follower.follow({ task: askedAgain }, caller, '', 'msg-nine', statusKey(askedAgain.status));
    expect(said(await delivered())).toEqual(['And which time?', 'Booked.']);
    expect(calls).toEqual(['subscribe', 'subscribe']);
  });

  it('lets go of a subscription the agent holds open after the turn waits for input (a2a-js does, until the next turn)', async () => {
    const { follower, delivered } = await setup([{ events: [{ task: task('TASK_STATE_WORKING') }, { task: askedAgain }], then: 'hang' }]);
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller, '', 'msg-monday');
    // Resolves only once the follow ended: held open, it would wait for the follow timeout (a minute here).
    expect(said(await delivered())).toEqual(['And which time?']);
  });
});
