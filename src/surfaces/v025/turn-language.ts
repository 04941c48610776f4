import type { Message, Task } from '../../model/index.js';
import { joinText } from '../../translate/index.js';
import type { FacadeLanguage } from './reply/words.js';

/** What a text says of its language: sure, or Chinese characters alone, which Japanese is written with too. */
type Reading = { language: FacadeLanguage; sure: true } | { language: 'zh'; sure: false };

/** The head of a text says its language as well as the whole would; a long paste is not scanned whole. */
const SCAN_CHARS = 2048;
const HIRAGANA = /\p{Script=Hiragana}/u;
const HAN = /\p{Script=Han}/u;
const LATIN = /\p{Script=Latin}/u;
const DIGIT = /\d/;
const OPENING = /[(（]/;
const CLOSING = /[)）]/;
/** The most Chinese characters in brackets that read as a name's gloss, not a sentence. */
const MAX_GLOSS = 4;

/**
 * Japanese by its hiragana (two at least: a stray kana in an emoticon is not Japanese). Chinese from four
 * of its characters on (a Chinese request above a pasted English template), or when they outnumber the
 * Latin words around them (`建一个 VPC` is Chinese, `deploy my site to 华东1` English, `deploy to 华东1`
 * says nothing). English from three Latin words on. An answer like "2", "ok" or "Allow once" says nothing.
 * A region's name is not a language: characters right before a digit (`华东1`) or a few in brackets
 * (`（杭州）`) are not counted, so `Deploy to 华东1（杭州）` is not Chinese.
 */
function reading(text: string): Reading | undefined {
  let hiragana = 0;
  let han = 0;
  let run = 0;
  let bracketed = 0;
  let gloss = 0;
  let latinWords = 0;
  let inWord = false;
  for (const char of text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text) {
    const latin = LATIN.test(char);
    if (latin && !inWord) latinWords++;
    inWord = latin;
    if (HAN.test(char)) {
      if (bracketed > 0) gloss++;
      else run++;
      continue;
    }
    if (!DIGIT.test(char)) han += run;
    run = 0;
    if (OPENING.test(char)) bracketed++;
    else if (CLOSING.test(char) && bracketed > 0 && --bracketed === 0) {
      if (gloss > MAX_GLOSS) han += gloss;
      gloss = 0;
    } else if (!latin && HIRAGANA.test(char)) hiragana++;
  }
  han += run + gloss;
  if (hiragana >= 2) return { language: 'ja', sure: true };
  if (han >= 4 || han > latinWords) return { language: 'zh', sure: false };
  return latinWords >= 3 ? { language: 'en', sure: true } : undefined;
}

/** The language a text is plainly written in, or undefined when it does not say (Chinese characters alone read as Chinese). */
export const textLanguage = (text: string): FacadeLanguage | undefined => reading(text)?.language;

/**
 * The language of a run of readings, newest first: the first sure one; Chinese characters alone are
 * Chinese, unless what comes before them in the run is Japanese ("許可" after a Japanese question).
 */
function languageOf(readings: Iterable<Reading | undefined>): FacadeLanguage | undefined {
  let hanOnly = false;
  for (const read of readings) {
    if (!read) continue;
    if (!read.sure) hanOnly = true;
    else return hanOnly && read.language !== 'ja' ? 'zh' : read.language;
  }
  return hanOnly ? 'zh' : undefined;
}

function* historyReadings(history: readonly Message[], role: Message['role']): Generator<Reading | undefined> {
  for (let at = history.length - 1; at >= 0; at--) {
    const message = history[at];
    if (message?.role === role) yield reading(joinText(message.parts));
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
  function* readings(): Generator<Reading | undefined> {
    yield said;
    if (conversation.remembered) yield { language: conversation.remembered, sure: true };
    yield* historyReadings(history, 'ROLE_USER');
    yield* historyReadings(history, 'ROLE_AGENT');
  }
  return { language: languageOf(readings()), said: said !== undefined };
}
