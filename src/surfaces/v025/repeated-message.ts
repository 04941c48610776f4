import { createHash } from 'node:crypto';
import type { Message, Part } from '../../model/index.js';
import { joinText } from '../../translate/index.js';
import type { TurnSoFar } from './turn-rest.js';

/**
 * The commonest message after a turn its user stopped reading (Bailian hung up, or retried) is that same message
 * again. Its rest is then the answer to the very message just sent, and telling its writer to send it again once
 * the rest is read would run it twice: the rest opens with other words (words.cutTurnRestOfSameMessage).
 *
 * "The same" is what the agent would be asked: the text of all its text parts, trimmed, its runs of white space as
 * one (a retyped message, Bailian's retry), and its other parts (files, data) as they are. A note keeps a digest of
 * it, not the text (cut-turn-notes.ts): a note stays small, and holds none of what its user wrote.
 */

/** 128 bits: enough that two different messages of one conversation never share a digest. */
const DIGEST_HEX_CHARS = 32;

const normalized = (text: string): string => text.normalize('NFC').trim().replace(/\s+/gu, ' ');

/** A part other than text, as the agent would read it: what it holds and how it is named, not its metadata. */
const otherPart = ({ raw, url, data, mediaType, filename }: Part): unknown[] => [
  raw ?? null,
  url ?? null,
  data ?? null,
  mediaType ?? null,
  filename ?? null,
];

/** The digest of what the message asks; undefined for a message that asks nothing (no text, no other part). */
export function messageDigest(message: Pick<Message, 'parts'>): string | undefined {
  const text = normalized(joinText(message.parts));
  const others = message.parts.filter((part) => part.text === undefined).map(otherPart);
  if (text === '' && others.length === 0) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([text, others]))
    .digest('hex')
    .slice(0, DIGEST_HEX_CHARS);
}

/** Whether `message` asks what the noted turn's message asked (a note of the release before keeps no digest: never). */
export function repeatsNotedMessage(shown: Pick<TurnSoFar, 'sentDigest'>, message: Pick<Message, 'parts'>): boolean {
  return shown.sentDigest !== undefined && shown.sentDigest === messageDigest(message);
}
