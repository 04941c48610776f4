import * as crypto from 'node:crypto';
import type { Message, Part } from '../model/index.js';
import { joinText } from '../translate/index.js';

/**
 * What a message asks, as a digest: two messages with one digest ask the agent the same. "The same" is the text of
 * all its text parts, trimmed, its runs of white space as one (a retyped message, a client's retry), and its other
 * parts (files, data) as they are; not its metadata. Kept instead of the text where a note must stay small and hold
 * none of what its user wrote (the facade's cut-turn notes), and compared when a messageId comes again
 * (repeated-messages.ts, the facade's repeated-turn.ts).
 *
 * Notes of the running release hold digests it computed, compared after a rollout: the digest of a message never
 * changes (test/core/message-digest.test.ts pins it). It is the hex sha256 of `JSON.stringify([text, others])`.
 */

/** 128 bits: enough that two different messages of one conversation never share a digest. */
const DIGEST_HEX_CHARS = 32;

// The facade digests every turn's message (its sent-turn note): Node's one-shot hash spares the Hash object, a
// stream, and its handle (since Node 20.12; before, the object).
const sha256Hex: (data: string) => string =
  typeof crypto.hash === 'function' ? (data) => crypto.hash('sha256', data, 'hex') : (data) => crypto.createHash('sha256').update(data).digest('hex');

const normalized = (text: string): string => text.normalize('NFC').trim().replace(/\s+/gu, ' ');

/** A part other than text, as the agent would read it: what it holds and how it is named, not its metadata. */
const otherPart = ({ raw, url, data, mediaType, filename }: Part): unknown[] => [
  raw ?? null,
  url ?? null,
  data ?? null,
  mediaType ?? null,
  filename ?? null,
];

/** `JSON.stringify([text, others])`, without the arrays for a message of text alone (most are). */
function digested(text: string, parts: readonly Part[]): string | undefined {
  const others = parts.some((part) => part.text === undefined) ? parts.filter((part) => part.text === undefined).map(otherPart) : undefined;
  if (text === '' && others === undefined) return undefined;
  return others === undefined ? `[${JSON.stringify(text)},[]]` : JSON.stringify([text, others]);
}

/** The digest of what the message asks; undefined for a message that asks nothing (no text, no other part). */
export function messageDigest(message: Pick<Message, 'parts'>): string | undefined {
  const json = digested(normalized(joinText(message.parts)), message.parts);
  return json === undefined ? undefined : sha256Hex(json).slice(0, DIGEST_HEX_CHARS);
}
