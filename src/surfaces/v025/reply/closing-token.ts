import { inCode } from './code-spans.js';
import { goesOnWithName, lastWord } from './names-in-text.js';
import { CARRIES_ON, SPACE } from './running-text.js';
import type { ReplyState } from './state.js';

const DIGIT = /\d/u;
/** A letter of a script with cases (Latin, Cyrillic, Greek, ...), or a mark on one (`e` + `\u0301`). */
const CASED_LETTER = /[\p{Lu}\p{Ll}\p{Lt}\p{M}]/u;
const LOWER_FIRST = /^\p{Ll}/u;
/**
 * What only goes on with the character before it, never starts words: a combining mark (an accent, a Thai or
 * Devanagari vowel sign, a keycap), a joiner, a variation selector, an emoji's skin tone, a flag's tags.
 */
const JOINS_BEFORE = /^(?:\p{M}|\p{Variation_Selector}|\p{Emoji_Modifier}|\u200c|\u200d|[\u{e0020}-\u{e007f}])/u;
const REGIONAL_INDICATOR = /\p{Regional_Indicator}/u;

/** The last code point of `text` (a surrogate pair read as one), '' for none. */
function lastCodePoint(text: string): string {
  const at = text.length - 1;
  if (at < 0) return '';
  const low = text.charCodeAt(at);
  return low >= 0xdc00 && low <= 0xdfff && at > 0 ? text.slice(at - 1) : text.charAt(at);
}

/** Whether `tail` ends with half a flag: an odd run of regional indicators (`🇨`, the `🇳` of `🇨🇳` to come). */
function endsWithHalfFlag(tail: string): boolean {
  let count = 0;
  for (let end = tail.length; end > 0 && REGIONAL_INDICATOR.test(lastCodePoint(tail.slice(0, end))); end -= 2) count++;
  return count % 2 === 1;
}

/**
 * Whether `text` goes on with the character or the word the reply ends with: it opens with what never starts
 * anything (a mark, a skin tone: `Cafe` then `\u0301.`, `👍` then `🏽`), follows a joiner or half a flag, or is a
 * lower-case piece of a word in a script with cases (`deploy` then `ed.`, `Прив` then `ет.`), which new words do not
 * start with.
 */
function goesOnWithWord(text: string, tail: string): boolean {
  const last = lastCodePoint(tail);
  if (JOINS_BEFORE.test(text) || last === '\u200d') return true;
  if (endsWithHalfFlag(tail) && REGIONAL_INDICATOR.test(String.fromCodePoint(text.codePointAt(0) ?? 0))) return true;
  return LOWER_FIRST.test(text) && CASED_LETTER.test(last);
}

/**
 * Whether a message that ends the turn under the id of the running text, and neither restates nor adds to
 * it, is its last token: it goes on where the text left off only when its boundary says the text was cut
 * there (a blank on either side, punctuation first, a number split in two, a lower-case word piece right
 * after a letter of a script with cases, a mark or a skin tone that belongs to the last character, inside
 * code, a URL's or a path's next name: names-in-text.ts). Anything else is new words that start a line:
 * Chinese or Japanese ("正在部署" then "部署完成。") or a capital after the last token would otherwise run on
 * from it, since an agent's tokens and its closing message look alike. A closing message of new words does
 * not start with a lower-case letter and no blank, where a model's word piece does ("Deploy" then "ed.").
 */
export function closesWithToken(text: string, state: ReplyState): boolean {
  const first = text.charAt(0);
  const { shownTail: tail, shownLast: last } = state;
  if (inCode(state.code) || SPACE.test(last) || SPACE.test(first) || CARRIES_ON.test(first)) return true;
  if (goesOnWithWord(text, tail)) return true;
  if (goesOnWithName(lastWord(tail), text)) return true;
  return DIGIT.test(first) && (DIGIT.test(last) || (/[.,]/u.test(last) && DIGIT.test(tail.charAt(tail.length - 2))));
}
