import { inCode } from './code-spans.js';
import type { ReplyState } from './state.js';

/**
 * Where one piece of an agent's text meets the next: whether the next goes on where the last left off, or
 * starts a line. Agents that stream their answer a few tokens at a time in working messages of their own
 * (a2a-python's `new_agent_text_message` per chunk, ADK's partial events) split words, numbers and code
 * anywhere; others send whole progress messages, each its own id. Nothing but the text at the boundary (and
 * the message before) tells them apart: the agent's timestamps would, but a blocking answer's history has
 * none, and `message/send` must read as `message/stream` does.
 */

export const SPACE = /\s/;
/** Characters that carry on what comes before them: a comma, a full stop, a closing bracket or quote. */
export const CARRIES_ON = /^[,.;:!?%)\]}'"\u2019\u201d\u3001\u3002\uff0c\uff1b\uff1a\uff01\uff1f\uff09\u300d\u300f\u2026]/u;
export const ENDS_SENTENCE = /[.!?:\u2026]/u;
/** Chinese and Japanese need no break between sentences: the next one carries on unless it is in Latin script. */
export const ENDS_CJK_SENTENCE = /[\u3002\uff01\uff1f\uff1a]/u;
const LOWER_OR_DIGIT = /[\p{Ll}\d]/u;
const DIGIT = /\d/u;
const LOWER = /\p{Ll}/u;
const UPPER = /\p{Lu}/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LATIN_LETTER_OR_DIGIT = /[A-Za-z\u00c0-\u024f\d]/u;

/** A Markdown list item's marker and its blank: `1. `, `2) `, `- `, `* `, `• ` (a number split in two, `4` + `2. `, is none). */
const LIST_ITEM = /^(?:\d{1,3}[.)]|[-*+\u2022])[ \t]+\S/u;
/** A status mark and words after it (`✅ ECS created`, `⚠️ Quota low`): a model's emoji token has no words with it. */
const MARKED_LINE = /^[\p{Extended_Pictographic}\u2713\u2714\u2717\u2718\u2192\u25b6\u25ba][\ufe0f\u200d\p{Extended_Pictographic}]*[ \t]+\S/u;
/** A Latin capital that opens two words or more: a whole message's words (`Creating ECS`), not a word piece. */
const CAPITAL_PHRASE = /^\p{Lu}[^\s]*[ \t]+\S/u;

/** The message the next one follows (its text). */
export interface Before {
  text: string;
}

/**
 * Whether a working message carries on the text the one before it left (`last` is its last character).
 * White space on either side, or punctuation first, carries on; so does a lower-case word or a number after a
 * Latin sentence's end, and anything but a Latin capital after a Chinese or Japanese one. These start a line:
 * - a list item (`1. Create the VPC`, `- vSwitch`) after text that does not end in a blank or a digit (a
 *   number split in two, `is 4` + `2. Next`, goes on);
 * - a status mark with words after it (`✅ ECS created`) after a letter or a digit;
 * - a capital after a lower-case letter (`Searching flights` then `Found 3 flights`), or a capital that
 *   opens two words or more after any Latin letter or digit (`Creating VPC` then `Creating ECS`): a model's
 *   word piece (`Java` + `Script.`, `VPC` + `s`) is one word, and a new word of its comes after a blank;
 * - a message that opens as the one before it did (`已创建专有网络 vpc-123` then `已创建交换机 vsw-456`,
 *   `正在创建实例` then `正在配置安全组`): progress lines written alike.
 * Inside code nothing starts a line (separatorBefore): an identifier split there is still one identifier.
 */
export function carriesOn(last: string, text: string, before?: Before): boolean {
  const first = text.charAt(0);
  if (SPACE.test(last) || SPACE.test(first)) return true;
  if (LIST_ITEM.test(text)) return DIGIT.test(last);
  if (MARKED_LINE.test(text) && LETTER_OR_DIGIT.test(last)) return false;
  if (CARRIES_ON.test(first)) return true;
  if (before && opensAlike(before, text)) return false;
  if (ENDS_CJK_SENTENCE.test(last)) return !UPPER.test(first);
  if (ENDS_SENTENCE.test(last)) return LOWER_OR_DIGIT.test(first);
  if (LOWER.test(last) && UPPER.test(first)) return false;
  return !(LATIN_LETTER_OR_DIGIT.test(last) && CAPITAL_PHRASE.test(text));
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/u;
/** How many characters past a shared opening each message must have: a token said twice (`ha` + `ha`) is no line. */
const AFTER_OPENING = 2;

/**
 * Whether `text` opens as `before` did: the same first Latin word (3 letters or more, a blank after it in
 * both), or the same first two Chinese or Japanese characters, each message going on past them by two
 * characters or more. Progress lines do (`正在创建…`, `Creating …`); a model's tokens, which follow on
 * from each other, rarely say the same words twice in a row, and a short one (`ha` + `ha`) is no line.
 */
function opensAlike(before: Before, text: string): boolean {
  // Its opening is all that is compared: a long message's head is enough.
  const previous = before.text.slice(0, 64).trimStart();
  const word = /^([A-Za-z]{3,})[ \t]+\S/u.exec(previous)?.[1];
  if (word !== undefined) return text.startsWith(word) && /^[ \t]+\S/u.test(text.slice(word.length));
  const opening = previous.slice(0, 2);
  if (opening.length < 2 || ![...opening].every((char) => CJK.test(char)) || !text.startsWith(opening)) return false;
  const dense = (value: string): number => value.replace(/\s+/g, '').length;
  return dense(previous) >= opening.length + AFTER_OPENING && dense(text) >= opening.length + AFTER_OPENING;
}

/** The message the reply's current segment holds. */
const messageBefore = (state: ReplyState): Before | undefined => (state.segmentText === '' ? undefined : { text: state.segmentText });

/**
 * A new segment after shown text starts on a new line, so two messages' sentences do not run together;
 * but a working message that carries on the agent's running text goes on where it left off.
 */
export function separatorBefore(text: string, state: ReplyState, flows = false): string {
  if (state.shown === '' || state.shownLast === '\n' || text.startsWith('\n')) return '';
  if (flows && state.segmentFlows && !state.breakPending && (inCode(state.code) || carriesOn(state.shownLast, text, messageBefore(state)))) return '';
  return '\n';
}
