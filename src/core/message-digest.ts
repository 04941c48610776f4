import { createHash } from 'node:crypto';
import type { Message, Part } from '../model/index.js';
import { joinText } from '../translate/index.js';

/**
 * What a message asks, as a digest: two messages with one digest ask the agent the same. "The same" is the text of
 * all its text parts, trimmed, its runs of white space as one (a retyped message, a client's retry), and its other
 * parts (files, data) as they are; not its metadata. Kept instead of the text where a note must stay small and hold
 * none of what its user wrote (the facade's cut-turn notes), and compared when a messageId comes again
 * (repeated-messages.ts, the facade's repeated-turn.ts).
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
