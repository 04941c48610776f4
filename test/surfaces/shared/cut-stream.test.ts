import { describe, expect, it } from 'vitest';
import { A2AError, errorDetails, errorInfos, type StreamResponse } from '../../../src/model/index.js';
import { StreamCut } from '../../../src/surfaces/shared/cut-stream.js';

const working = (taskId: string): StreamResponse => ({
  statusUpdate: { taskId, contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } },
});
const completed: StreamResponse = { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } };

describe('StreamCut: the words a stream the shutdown cut ends with', () => {
  it('names the task once a stream event named it, and says how to follow it', () => {
    const cut = new StreamCut(true);
    cut.seen(working('t-1'));
    const error = cut.ending(A2AError.shuttingDown());
    expect(error.message).toContain('task t-1 goes on at the agent: follow it with SubscribeToTask or read it with GetTask');
    // A status of a call that may have done its work (500 INTERNAL), not one that invites the same call again.
    expect(error.hopFailure).toBeUndefined();
    expect(error.statusInfo).toMatchObject({ httpStatus: 500, grpcStatus: 'INTERNAL' });
    // The task also as the gateway's own ErrorInfo (A2A has no reason for it), which every binding renders.
    const info = { reason: 'STREAM_CUT_TASK_CONTINUES', domain: 'a2a-bridge', metadata: { taskId: 't-1' } };
    expect(errorInfos(error)).toEqual([info]);
    expect(errorDetails(error)).toEqual([{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', ...info }]);
  });

  it('keeps "The gateway is shutting down" while no task is known (nothing reached the agent) and once the turn ended', () => {
    expect(new StreamCut(true).ending(A2AError.shuttingDown()).message).toBe('The gateway is shutting down');
    expect(errorInfos(new StreamCut(true).ending(A2AError.shuttingDown()))).toEqual([]);
    const ended = new StreamCut(true);
    ended.seen(working('t-1'));
    ended.seen(completed);
    expect(ended.ending(A2AError.shuttingDown()).message).toBe('The gateway is shutting down');
  });

  it('leaves any other error as it is', () => {
    const cut = new StreamCut(true);
    cut.seen(working('t-1'));
    const other = A2AError.upstreamTimedOut();
    expect(cut.ending(other)).toBe(other);
    const thrown = new Error('not an A2AError');
    expect(cut.ending(thrown)).toBe(thrown);
  });

  it('leaves a SubscribeToTask stream "shutting down": it sent nothing to run twice, and subscribing again is its retry', () => {
    const cut = new StreamCut(false);
    cut.seen(working('t-1'));
    const error = cut.ending(A2AError.shuttingDown());
    expect(error.message).toBe('The gateway is shutting down');
    expect(error.statusInfo).toMatchObject({ httpStatus: 503, grpcStatus: 'UNAVAILABLE' });
  });
});
