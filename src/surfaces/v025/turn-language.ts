import type { Message, Task } from '../../model/index.js';
import { joinText } from '../../translate/index.js';
import type { FacadeLanguage } from './reply/words.js';

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN = /\p{Script=Han}/u;
const LATIN_WORD = /\p{Script=Latin}+/gu;

/**
 * The language a text is plainly written in, or undefined when it does not say: Japanese by its kana,
 * Chinese by its characters, English from three Latin words on. An answer like "2", "ok" or "Allow once"
 * says nothing, so a Chinese conversation is not answered in English because its user typed an option.
 */
export function textLanguage(text: string): FacadeLanguage | undefined {
  if (KANA.test(text)) return 'ja';
  if (HAN.test(text)) return 'zh';
  return (text.match(LATIN_WORD)?.length ?? 0) >= 3 ? 'en' : undefined;
}

/**
 * The language of the facade's own words for a turn: the caller's message, else the latest message of
 * theirs in the task the turn continues that says one (iac-code keeps a conversation in one task), else
 * `fallback`.
 */
export function turnLanguage(message: Message | undefined, previous: Task | undefined, fallback: FacadeLanguage): FacadeLanguage {
  const said = message && textLanguage(joinText(message.parts));
  if (said) return said;
  const history = previous?.history ?? [];
  for (let at = history.length - 1; at >= 0; at--) {
    const earlier = history[at];
    const language = earlier?.role === 'ROLE_USER' ? textLanguage(joinText(earlier.parts)) : undefined;
    if (language) return language;
  }
  return fallback;
}
