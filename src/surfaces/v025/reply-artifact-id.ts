import { createHash } from 'node:crypto';

/**
 * Ids the facade makes the same each time from the same words, shaped as UUIDs (what the a2a SDKs make): what
 * tasks/get shows of a turn must carry the ids message/stream and message/send showed of it, and one read the
 * next read's, or a client that merges what it reads by artifactId shows the reply twice.
 */
export function stableId(...words: readonly string[]): string {
  const hex = createHash('sha256').update(words.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id of a turn's reply artifact: made from the task the caller is shown and the message the turn sent (its
 * user message, the task's last one once the turn is kept), never from the task alone: a follow-up turn in the same
 * task has a reply of its own, and its chunks (all `append: true`) would be joined onto the turn before's.
 */
export const replyArtifactIdOf = (taskId: string, sentMessageId: string): string => stableId(taskId, 'turn-reply', sentMessageId);
