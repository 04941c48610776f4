/**
 * Following a task the gateway answered while it still ran: which upstream calls a follow makes, and
 * which notifications come of them, over a scripted port and the real watcher (follow-harness.ts).
 * A follow kept in a journal, resumed and claimed across replicas: follow-journaled.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { A2AError } from '../../src/model/index.js';
import { caller, setup, status, task, waitForCalls } from './follow-harness.js';

describe('following a task answered while it runs', () => {
  it("subscribes once and delivers the turn's end with the agent's words", async () => {
    const { follower, calls, delivered } = await setup([
      {
        events: [
          { task: task('TASK_STATE_WORKING') },
          status('TASK_STATE_WORKING', 'thinking'),
          status('TASK_STATE_COMPLETED', 'Your VPC is ready.'),
        ],
        then: 'end',
      },
    ]);
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(await delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Your VPC is ready.')]);
    expect(calls).toEqual(['subscribe']);
  });

  it('reads the task when the subscription is refused because the turn already ended', async () => {
    const { follower, calls, delivered } = await setup(
      [A2AError.unsupportedOperation('Task T is in a terminal state')],
      [task('TASK_STATE_INPUT_REQUIRED', 'Which region?')],
    );
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(await delivered()).toEqual([{ task: task('TASK_STATE_INPUT_REQUIRED', 'Which region?') }]);
    expect(calls).toEqual(['subscribe', 'get']);
  });

  it('polls an agent that cannot stream until the task is done', async () => {
    const refused = () => A2AError.unsupportedOperation('Streaming is not supported');
    const { follower, calls, delivered } = await setup(
      [refused(), refused(), refused()],
      [task('TASK_STATE_WORKING'), task('TASK_STATE_WORKING'), task('TASK_STATE_FAILED', 'Quota exceeded')],
    );
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(await waitForCalls(calls, 6)).toEqual(['subscribe', 'get', 'subscribe', 'get', 'subscribe', 'get']);
    expect(await delivered()).toEqual([{ task: task('TASK_STATE_FAILED', 'Quota exceeded') }]);
  });

  it('subscribes again after a dropped subscription while the task still runs, and notifies its end once', async () => {
    const { follower, calls, delivered } = await setup(
      [
        { events: [{ task: task('TASK_STATE_WORKING') }], then: new Error('socket hang up') },
        { events: [{ task: task('TASK_STATE_WORKING') }, status('TASK_STATE_COMPLETED', 'Done.')], then: 'end' },
      ],
      [task('TASK_STATE_WORKING')],
    );
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    await waitForCalls(calls, 3);
    expect(await delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Done.')]);
    expect(calls).toEqual(['subscribe', 'get', 'subscribe']);
  });

  it('does not follow a turn that has ended, a direct message, a task already followed, or with timeout 0', async () => {
    const ended = await setup([]);
    void ended.follower.follow({ task: task('TASK_STATE_INPUT_REQUIRED') }, caller);
    void ended.follower.follow({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }, caller);
    expect(await ended.delivered()).toEqual([]);
    expect(ended.calls).toEqual([]);

    const twice = await setup([{ events: [], then: 'hang' }]);
    void twice.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    void twice.follower.follow({ task: task('TASK_STATE_WORKING') }, caller);
    await waitForCalls(twice.calls, 1);
    await twice.follower.stop();
    expect(twice.calls).toEqual(['subscribe']);

    const off = await setup([], [], { timeoutMs: 0 });
    void off.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(off.calls).toEqual([]);
  });

  it("follows as the caller's principal, outlives the caller's signal, and ends on stop", async () => {
    const { follower, calls, contexts } = await setup([{ events: [{ task: task('TASK_STATE_WORKING') }], then: 'hang' }]);
    const call = new AbortController();
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, { ...caller, signal: call.signal });
    call.abort();
    await waitForCalls(calls, 1);
    expect(contexts[0]).toMatchObject({ principal: 'basic:alice', surface: 'jsonrpc' });
    expect(contexts[0]!.signal.aborted).toBe(false);
    await follower.stop();
    expect(contexts[0]!.signal.aborted).toBe(true);
    // After stop, nothing new is followed.
    void follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'U' } }, caller);
    expect(calls).toEqual(['subscribe']);
  });

  it('gives up at the follow timeout', async () => {
    const { follower, calls, contexts } = await setup([{ events: [], then: 'hang' }], [task('TASK_STATE_WORKING')], { timeoutMs: 50 });
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    await waitForCalls(calls, 1);
    await new Promise((resolve) => contexts[0]!.signal.addEventListener('abort', resolve, { once: true }));
    await follower.stop();
    expect(calls).toEqual(['subscribe']);
  });

  it("one caller follows at most a quarter of maxFollowed by default; another caller's turn is still followed", async () => {
    const { follower, calls, contexts } = await setup(
      [
        { events: [], then: 'hang' },
        { events: [], then: 'hang' },
      ],
      [],
      { maxFollowed: 4 },
    );
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    void follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'U' } }, caller);
    void follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'B' } }, { ...caller, principal: 'basic:bob' });
    await waitForCalls(calls, 2);
    await follower.stop();
    // Alice's second (U) was not subscribed to.
    expect(contexts.map((ctx) => ctx.principal)).toEqual(['basic:alice', 'basic:bob']);
  });

  it('follows at most maxFollowed tasks at once', async () => {
    const { follower, calls } = await setup([{ events: [], then: 'hang' }], [], { maxFollowed: 1 });
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    void follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'U' } }, caller);
    await waitForCalls(calls, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await follower.stop();
    expect(calls).toEqual(['subscribe']);
  });
});
