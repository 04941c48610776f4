import * as crypto from 'node:crypto';

/**
 * The SHA-256 of `text` in hex. `crypto.hash` (Node 20.12 and later) makes it in one call; a Hash object costs some
 * 2.5 times as many instructions (46 k against 18 k, about 2 % of a whole Bailian message/send: bench/README.md,
 * thirty-second pass), and a turn makes one.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * Ids the facade makes the same each time from the same words, shaped as UUIDs (what the a2a SDKs make): what
 * tasks/get shows of a turn must carry the ids message/stream and message/send showed of it, and one read the
 * next read's, or a client that merges what it reads by artifactId shows the reply twice. The same on every
 * replica and every version of the gateway (SHA-256): a turn streamed by one is read again by another.
 */
export function stableId(...words: readonly string[]): string {
  const hex = sha256Hex(words.join('\u0000'));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id of a turn's reply artifact: made from the task the caller is shown and the message the turn sent (its
 * user message, the task's last one once the turn is kept), never from the task alone: a follow-up turn in the same
 * task has a reply of its own, and its chunks (all `append: true`) would be joined onto the turn before's.
 */
export const replyArtifactIdOf = (taskId: string, sentMessageId: string): string => stableId(taskId, 'turn-reply', sentMessageId);
