/**
 * A turn's reply artifact id is the same on every replica and every version of the gateway: a turn streamed by one
 * is read again by another (tasks/get, tasks/resubscribe), and a client that merges by artifactId would show the
 * reply twice if the ids differed. The ids below are the SHA-256 of the words, pinned: a cheaper hash would change
 * every id a gateway already showed.
 */
import { describe, expect, it } from 'vitest';
import { replyArtifactIdOf, stableId } from '../../../src/surfaces/v025/reply-artifact-id.js';

describe('the reply artifact id', () => {
  it('is the SHA-256 of the task, the turn and the message the turn sent, shaped as a UUID', () => {
    expect(replyArtifactIdOf('task-1', 'msg-1')).toBe('b9092988-2fa1-ab21-8cbf-5d624085aaff');
    expect(stableId('task-1', 'turn-reply', 'msg-1')).toBe('b9092988-2fa1-ab21-8cbf-5d624085aaff');
  });

  it('of a follow-up turn in the same task is its own', () => {
    expect(replyArtifactIdOf('task-1', 'msg-2')).toBe('3cbaee0f-e22a-40c5-2788-5021c3a78142');
  });
});
