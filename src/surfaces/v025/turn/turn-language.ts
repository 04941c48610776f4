import type { Message, Task } from '../../../model/index.js';
import { joinText } from '../../../translate/index.js';
import type { FacadeLanguage } from '../reply/words.js';

/** What a text says of its language: sure, or Chinese characters alone, which Japanese is written with too. */
type Reading = { language: FacadeLanguage; sure: true } | { language: 'zh'; sure: false };

/** The head of a text says its language as well as the whole would; a long paste is not scanned whole. */
const SCAN_CHARS = 2048;
const HIRAGANA = /\p{Script=Hiragana}/u;
const KATAKANA = /\p{Script=Katakana}/u;
/** Marks of no script inside a katakana word, which goes on past them: the long-vowel mark (`データ`), halfwidth too, and halfwidth voicing (`ﾃﾞｰﾀ`). */
const KATAKANA_WORD_MARKS = new Set(['\u30fc', '\uff70', '\uff9e', '\uff9f']);
const HAN = /\p{Script=Han}/u;
const LATIN = /\p{Script=Latin}/u;
/** The most Chinese characters in brackets that read as a name's gloss, not a sentence. */
const MAX_GLOSS = 4;

/** The CJK Unified Ideographs block: every code point in it is Han (checked against Node's ICU in the tests). */
const HAN_BLOCK_FIRST = 0x4e00;
const HAN_BLOCK_LAST = 0x9fff;

/** What one character counts as in a reading; one kind each (a digit is ASCII's `\d`, a bracket either width). */
export type CharKind = 'latin' | 'han' | 'digit' | 'opening' | 'closing' | 'hiragana' | 'katakana' | 'other';

/**
 * A character's kind. ASCII and the common Chinese block are told by their code; only the rest takes the
 * Unicode script expressions, a regular expression run each (every turn's message is read, and six runs
 * a character cost microseconds on a short one).
 */
export function kindOf(char: string): CharKind {
  const code = char.charCodeAt(0);
  if (code < 0x80) {
    const lower = code | 0x20;
    if (lower >= 0x61 && lower <= 0x7a) return 'latin';
    if (code >= 0x30 && code <= 0x39) return 'digit';
    return code === 0x28 ? 'opening' : code === 0x29 ? 'closing' : 'other';
  }
  if (code >= HAN_BLOCK_FIRST && code <= HAN_BLOCK_LAST) return 'han';
  if (LATIN.test(char)) return 'latin';
  if (HAN.test(char)) return 'han';
  if (char === '（') return 'opening';
  if (char === '）') return 'closing';
  if (HIRAGANA.test(char)) return 'hiragana';
  return KATAKANA.test(char) ? 'katakana' : 'other';
}

/**
 * Japanese by its kana, two at least: hiragana, and the letters of katakana words (`ファイル`, `サブネット`: two
 * letters in a row, the long-vowel mark between them or not), which Chinese is never written with; a stray kana
 * in an emoticon (`ツ`, `ノ`, `(ﾉ◕ヮ◕)ﾉ`) is not Japanese, nor one `の` (`可以の`); but one hiragana right beside a
 * Chinese character is (`VPCを作成`, `作成して`): a particle or an ending, which Chinese text never holds. Chinese from four
 * of its characters on (a Chinese request above a pasted English template), or when they outnumber the
 * Latin words around them (`建一个 VPC` is Chinese, `deploy my site to 华东1` English, `deploy to 华东1`
 * says nothing). English from three Latin words on. An answer like "2", "ok" or "Allow once" says nothing.
 * A region's name is not a language: characters right before a digit (`华东1`) or a few in brackets
 * (`（杭州）`) are not counted, so `Deploy to 华东1（杭州）` is not Chinese.
 */
function reading(text: string): Reading | undefined {
  let kana = 0;
  /** The katakana letters of the current run: two make a word. */
  let katakanaRun = 0;
  let han = 0;
  let run = 0;
  let bracketed = 0;
  let gloss = 0;
  let latinWords = 0;
  let inWord = false;
  let previous: CharKind = 'other';
  let previousParticle = false;
  let particleBesideHan = false;
  for (const char of text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text) {
    const kind = kindOf(char);
    const particle = kind === 'hiragana' && char !== 'の';
    if ((particle && previous === 'han') || (kind === 'han' && previousParticle)) particleBesideHan = true;
    previous = kind;
    previousParticle = particle;
    if (kind === 'katakana') {
      if (++katakanaRun === 2) kana += 2;
    } else if (!KATAKANA_WORD_MARKS.has(char)) katakanaRun = 0;
    const latin = kind === 'latin';
    if (latin && !inWord) latinWords++;
    inWord = latin;
    if (kind === 'han') {
      if (bracketed > 0) gloss++;
      else run++;
      continue;
    }
    if (kind !== 'digit') han += run;
    run = 0;
    if (kind === 'opening') bracketed++;
    else if (kind === 'closing' && bracketed > 0 && --bracketed === 0) {
      if (gloss > MAX_GLOSS) han += gloss;
      gloss = 0;
    } else if (kind === 'hiragana') kana++;
  }
  han += run + gloss;
  if (kana >= 2 || particleBesideHan) return { language: 'ja', sure: true };
  if (han >= 4 || han > latinWords) return { language: 'zh', sure: false };
  return latinWords >= 3 ? { language: 'en', sure: true } : undefined;
}

/** The language a text is plainly written in, or undefined when it does not say (Chinese characters alone read as Chinese). */
export const textLanguage = (text: string): FacadeLanguage | undefined => reading(text)?.language;

/**
 * The language of a run of readings taken newest first: the first sure one; Chinese characters alone are
 * Chinese, unless what comes before them in the run is Japanese ("許可" after a Japanese question). Taken
 * one by one, so that older messages are read only while nothing newer decided (a plain loop: generators
 * cost more than every reading of a short message together).
 */
class LanguageRun {
  private hanOnly = false;

  /** The run's language once `read` decides it; undefined: read on. */
  take(read: Reading | undefined): FacadeLanguage | undefined {
    if (!read) return undefined;
    if (read.sure) return this.hanOnly && read.language !== 'ja' ? 'zh' : read.language;
    this.hanOnly = true;
    return undefined;
  }

  /** The messages of `role` in `history`, newest first. */
  takeHistory(history: readonly Message[], role: Message['role']): FacadeLanguage | undefined {
    for (let at = history.length - 1; at >= 0; at--) {
      const message = history[at];
      const decided = message?.role === role ? this.take(reading(joinText(message.parts))) : undefined;
      if (decided) return decided;
    }
    return undefined;
  }

  /** Nothing sure in the whole run. */
  end(): FacadeLanguage | undefined {
    return this.hanOnly ? 'zh' : undefined;
  }
}

/** A turn's language, and whether the caller's message said it (then it is worth remembering). */
export interface TurnLanguage {
  language: FacadeLanguage | undefined;
  said: boolean;
}

/**
 * The language of the facade's own words for a turn: the caller's message when it says one; else the
 * conversation's (as chosen before in this process, or read from the task the turn continues: the
 * caller's messages, then the agent's, which answers in the caller's language); undefined when nothing says.
 */
export function turnLanguage(
  message: Message | undefined,
  conversation: { previous?: Task | undefined; remembered?: FacadeLanguage | undefined },
): TurnLanguage {
  const history = conversation.previous?.history ?? [];
  const said = message ? reading(joinText(message.parts)) : undefined;
  const run = new LanguageRun();
  const language =
    run.take(said) ??
    run.take(conversation.remembered ? { language: conversation.remembered, sure: true } : undefined) ??
    run.takeHistory(history, 'ROLE_USER') ??
    run.takeHistory(history, 'ROLE_AGENT') ??
    run.end();
  return { language, said: said !== undefined };
}
