/**
 * The reducer's holder (createTurnReply) lives as long as its facade stream: it must stay a fast-mode object, not the
 * dictionary an object literal with getters becomes (docs/performance.md), and still read as it did.
 */
import { describe, expect, it } from 'vitest';
import { createTurnReply } from '../../../../src/surfaces/v025/reply/index.js';
import { hasFastProperties } from '../../../support/fast-properties.js';
import { options, readText, status, submitted } from './support.js';

describe('createTurnReply', () => {
  it('is a fast-mode object whose started, done and shown follow the turn', () => {
    const reply = createTurnReply(options());
    expect(hasFastProperties(reply)).toBe(true);
    expect([reply.started, reply.done, reply.shown]).toEqual([false, false, '']);
    reply.push(submitted);
    const read = readText(reply.push(status('TASK_STATE_COMPLETED', 'All done.')));
    expect(read).toContain('All done.');
    expect([reply.started, reply.done]).toEqual([true, true]);
    expect(reply.shown).toContain('All done.');
  });
});
