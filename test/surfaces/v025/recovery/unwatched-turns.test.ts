/**
 * What a stream tells its turn of the frames it writes (unwatched-turns.ts shownAsWritten): made for every open
 * message/stream, so it must stay an ordinary object (a literal with a getter is a dictionary, hundreds of bytes more);
 * so must message/send's bound, made for every send.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { A2AError, type Message } from '../../../../src/model/index.js';
import type { WatchedTurn } from '../../../../src/surfaces/v025/recovery/watched-turn.js';
import { wordsIn } from '../../../../src/surfaces/v025/reply-options.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { boundSendTurn, unwatchedTurn, type TurnBound } from '../../../../src/surfaces/v025/recovery/unwatched-turns.js';
import { hasFastProperties } from '../../../support/fast-properties.js';

const SENT: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '帮我创建VPC模板' }] };

describe('unwatchedTurn: the frames its stream wrote', () => {
  it("reads the tracker's mark at each frame, from an ordinary object", () => {
    const tracker = new TurnTracker({ sent: SENT });
    const watch = { tracker, unwatched: () => false, leftAtEnd: () => undefined } as unknown as WatchedTurn;
    const written = unwatchedTurn(watch, wordsIn('zh')).shownAsWritten();
    const before = written.mark();
    tracker.note({ statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' } } });
    expect(written.mark()).toBe(tracker.mark);
    expect(written.mark()).toBeGreaterThan(before);
    expect(hasFastProperties(written)).toBe(true);
  });
});

describe("boundSendTurn: message/send's bound, made for every send", () => {
  afterEach(() => vi.useRealTimers());

  it('passes at request-timeout-ms: the call is ended with the time-out as its user reads it, from an ordinary object', () => {
    vi.useFakeTimers();
    const told = A2AError.upstreamTimedOut().toldAs('The agent goes on; ask for its answer in a moment.');
    const abort = vi.fn();
    const turn = { passed: () => told, abort } as unknown as TurnBound;
    const bound = boundSendTurn(1_000, turn);
    expect(hasFastProperties(bound)).toBe(true);
    vi.advanceTimersByTime(999);
    expect(bound.passed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(bound.passed).toBe(true);
    expect(abort).toHaveBeenCalledWith(told);
  });

  it("cleared at the turn's end, never passes", () => {
    vi.useFakeTimers();
    const abort = vi.fn();
    const bound = boundSendTurn(1_000, { passed: (timedOut: A2AError) => timedOut, abort } as unknown as TurnBound);
    bound.clear();
    vi.advanceTimersByTime(5_000);
    expect(bound.passed).toBe(false);
    expect(abort).not.toHaveBeenCalled();
  });
});
