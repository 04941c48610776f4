/**
 * What a stream tells its turn of the frames it writes (unwatched-turns.ts shownAsWritten): made for every open
 * message/stream, so it must stay an ordinary object (a literal with a getter is a dictionary, hundreds of bytes more).
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/model/index.js';
import type { WatchedTurn } from '../../../src/surfaces/v025/watched-turn.js';
import { wordsIn } from '../../../src/surfaces/v025/reply-options.js';
import { TurnTracker } from '../../../src/surfaces/v025/turn-tracker.js';
import { unwatchedTurn } from '../../../src/surfaces/v025/unwatched-turns.js';
import { hasFastProperties } from '../../support/fast-properties.js';

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
