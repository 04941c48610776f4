import { messageDigest } from '../../../core/message-digest.js';
import type { Message } from '../../../model/index.js';
import type { TurnSoFar } from '../recovery/turn-rest.js';

/**
 * The commonest message after a turn its user stopped reading (Bailian hung up, or retried) is that same message
 * again. Its rest is then the answer to the very message just sent, and telling its writer to send it again once
 * the rest is read would run it twice: the rest opens with other words (words.cutTurnRestOfSameMessage).
 *
 * "The same" is what the agent would be asked: the text of all its text parts, trimmed, its runs of white space as
 * one (a retyped message, Bailian's retry), and its other parts (files, data) as they are (core/message-digest.ts).
 * A note keeps a digest of it, not the text (cut-turn-notes.ts): a note stays small, and holds none of what its user wrote.
 */

export { messageDigest };

/** Whether `message` asks what the noted turn's message asked (a note of the release before keeps no digest: never). */
export function repeatsNotedMessage(shown: Pick<TurnSoFar, 'sentDigest'>, message: Pick<Message, 'parts'>): boolean {
  return shown.sentDigest !== undefined && shown.sentDigest === messageDigest(message);
}
