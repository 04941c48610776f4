import { inCode } from './code-spans.js';
import { needsBlankLine, startsLineByShape } from './line-shapes.js';
import { cutsCapitalisedName, goesOnWithName, isUrlOrPath, lastWord, opensWithResourceId, readsAsMessage } from './names-in-text.js';
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
const LOWER = /\p{Ll}/u;
const UPPER = /\p{Lu}/u;
const LATIN_LETTER_OR_DIGIT = /[A-Za-z\u00c0-\u024f\d]/u;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/u;
/** A label's colon (`Status:`, `可用区：`): its value may follow as a token of its own (`Running`, `H`). */
const COLON = /[:\uff1a]/u;

/**
 * A capitalised word and words after it, a comma or a colon between them or not: a whole message's words
 * (`Creating ECS`, `All resources created.`, `Docs: https://…`), not a word piece (`S instance`, `SD per day`, `OS CreateStack`, `Us and 48 GiB`, `C named demo`).
 */
const CAPITAL_PHRASE = /^\p{Lu}\p{Ll}{2,}[,;:]?[ \t]+\S/u;
/**
 * An acronym of two capitals or more and a lower-case word after it (`VPC created`, `ECS instance`, `OK, next`):
 * a whole message's words. A model's piece of an acronym is one capital (`S instance`, `C named demo`) or is
 * cut after a lone capital (`U` + `SD per day`, `R` + `OS to deploy`); two capitals after a digit are a unit
 * (`12` + `GB of memory`).
 */
const ACRONYM_PHRASE = /^(\p{Lu}{2,})[,;:]?[ \t]+\p{Ll}/u;
/** A word of one capital at the end (`about 12.5 U`, `run R`): an acronym's first piece. */
const ENDS_LONE_CAPITAL = /(?:^|[^\p{L}\p{N}])\p{Lu}$/u;
const DIGIT = /\d/u;
/** A lone capital (`Gi` + `B of memory`, `12.5 U` + `SD`): a unit's or an acronym's piece; `A` and `I` are words. */
const LONE_CAPITAL = /^(?![AI](?![\p{L}\p{N}]))\p{Lu}(?![\p{L}\p{N}])/u;
/** A word of one lower-case Latin letter at the end (`12 v` + `CPUs`, `v` + `Switch`, `i` + `Phone`): a prefix. */
const LONE_LOWER = /(?:^|[^\p{L}\p{N}_])[a-z]$/u;

/**
 * The message the next one follows (its text), and when known the word the shown text ends with (names-in-text.ts)
 * and the shown text's current line (its head, as code-spans.ts keeps it), where a block's end is read (line-shapes.ts).
 */
export interface Before {
  text: string;
  word?: string;
  line?: string;
}

/**
 * Whether a working message carries on the text the one before it left (`last` is its last character).
 * White space on either side, or punctuation first, carries on; so does a lower-case word or a number after a
 * Latin sentence's end, and anything but a Latin capital after a Chinese or Japanese one; after a label's colon
 * (`Status:` + `Running`, `可用区：` + `H`), also a capital whose words do not read as a message. These start a line:
 * - by its Markdown shape (line-shapes.ts): a list item (`1. Create the VPC`, `- vSwitch`), a rule or a quote
 *   after a letter, a sentence's end or closing punctuation, but not after a digit (`is 4` + `2. Next`), an
 *   operator or an operand (`x = a` + `- b`, `a -` + `> b`); a fence, a heading or a table row after text that
 *   ends a line of prose or a row (`Run this` + ```` ```bash ````, not `C` + `# code`); a status mark with words
 *   after it (`✅ ECS created`) after a letter, a digit or closing punctuation; and anything after a closing
 *   fence, a padded table row's last `|` or a `---` rule (`| 1 | 2 |` + `Table complete`); a row being written
 *   goes on (`|:` + `---|`);
 * - a capital after a lower-case letter (`Searching flights` then `Found 3 flights`), but for a lone capital
 *   (`Gi` + `B of memory`) or after a lone lower-case letter (`12 v` + `CPUs`, `v` + `Switch`): pieces of a
 *   unit or a word; a word cut where its capitals start (`Java` + `Script`) still reads with a line break;
 * - a capitalised word with words after it (`Creating ECS`, `All resources created.`) after a Latin letter or
 *   a digit (`Creating VPC` then `Creating ECS`, `vsw-456` then `Creating VPC`): a model's pieces of an
 *   acronym or a word (`EC` + `S instance`, `vCP` + `Us and`, `R` + `OS CreateStack`, `在华东1` + `VPC 中`)
 *   are not capitalised words, and its next word comes after a blank;
 * - an acronym with a lower-case word after it (`VPC created`, `ECS instance created`, `OK, next`) after a Latin
 *   letter or a digit, but not after a lone capital (`U` + `SD per day`) nor two capitals after a digit (`12` +
 *   `GB of memory`): a model's acronym pieces;
 * - words in Latin script that read as a message of their own after closing punctuation or a URL's `/`
 *   (`Created VPC (vpc-123)`, `Progress 50%`, `（已完成）` or `…/docs/` then `Creating ECS`);
 * - a message that opens as the one before it did (`已创建专有网络 vpc-123` then `已创建交换机 vsw-456`,
 *   `正在创建实例` then `正在配置安全组`): progress lines written alike;
 * - a message that opens with a whole resource id after a whole word (`Creating vSwitch` then `vsw-123 created`);
 * - Chinese or Japanese after a whole message in Latin script, and such a message after them (`Validating
 *   template` then `正在校验模板`, `正在校验模板` then `Checking quotas`): Latin words in Chinese text
 *   (`用Terraform部署`) come a word a token, or with Chinese in the same message.
 * A URL, a path or a ROS type cut at its `:`, `::` or `?` carries on (`https:` + `//…`, `ALIYUN::` + `ECS::…`,
 * `C:` + `\Users`, `/?` + `Action=…`): names-in-text.ts.
 * Inside code nothing starts a line (separatorBefore): an identifier split there is still one identifier.
 */
export function carriesOn(last: string, text: string, before?: Before): boolean {
  const first = text.charAt(0);
  if (SPACE.test(last) || SPACE.test(first)) return true;
  // The message before, when what was shown ends as it does (a hint only: the facade may have rendered it).
  const tail = before !== undefined && before.text.endsWith(last) ? before.text : last;
  const word = before?.word ?? lastWord(tail);
  // A list item, a status mark, a Markdown block that opens a line, or a block the line before closed.
  const shape = startsLineByShape(tail, text, word, before?.line);
  if (shape !== undefined) return !shape;
  if (CARRIES_ON.test(first)) return true;
  // A URL, a path or a ROS type cut at its `:`, `::` or `?`, and a progress message that opens with a resource id.
  // A message that holds only the end of a name is a model's token cutting it (`?Action=` + `Describe`, `?stack` + `Id`).
  const piece = tail === before?.text && cutsCapitalisedName(word, tail, text);
  if (goesOnWithName(word, text, piece)) return true;
  if (opensWithResourceId(word, text)) return false;
  if (before && opensAlike(before, text)) return false;
  // A label's value (`Status:` + `Running`, `可用区：` + `H`); a sentence after the label reads as a message.
  if (COLON.test(last) && UPPER.test(first)) return !readsAsMessage(text);
  if (ENDS_CJK_SENTENCE.test(last)) return !UPPER.test(first);
  if (ENDS_SENTENCE.test(last)) return LOWER_OR_DIGIT.test(first);
  if (LOWER.test(last) && UPPER.test(first)) return LONE_CAPITAL.test(text) || LONE_LOWER.test(tail);
  // Chinese and a Latin word meet without a blank where Chinese is written so (`用Terraform部署`): only a whole
  // message in Latin script on either side starts a line (`Validating template` then `正在校验模板`).
  if (CJK.test(first)) return !latinMessage(tail);
  if (CJK.test(last)) return !latinMessage(text);
  // What closes a phrase ends a whole message as a letter does (`Created VPC (vpc-123)` then `Creating ECS`); a
  // model's token cut there goes on with punctuation, a lower-case word or a blank (`(see docs)` + ` The`).
  if (endsPhrase(tail, word)) return !latinMessage(text);
  return !(LATIN_LETTER_OR_DIGIT.test(last) && (CAPITAL_PHRASE.test(text) || opensWithAcronym(last, text, tail)));
}

/** A whole message in Latin script: one with Chinese or Japanese in it (`Alibaba Cloud控制台`) is a piece of Chinese text. */
const latinMessage = (text: string): boolean => readsAsMessage(text) && !CJK.test(text);

/**
 * A closing bracket or quote (`(vpc-123)`, `（已完成）`, `「专有网络」`, `’`), `%`, or a straight quote or a backtick
 * right after text (`"demo"`, `` `vpc-1` ``; after a blank one opens). Not a `/` but a URL's or a path's
 * (`…/docs/`): elsewhere it joins alternatives a model may cut (`TCP/` + `IP traffic`, `CPU/` + `Memory usage`).
 */
const ENDS_PHRASE = /(?:[\p{Pe}\p{Pf}%]|\S["'`])$/u;
const endsPhrase = (tail: string, word: string): boolean => ENDS_PHRASE.test(tail) || (tail.endsWith('/') && isUrlOrPath(word));

/**
 * Whether `text` opens with an acronym and a lower-case word after it (`VPC created`, `OK, next`) that is no
 * piece of the one before it: not after a lone capital (`about 12.5 U` + `SD per day`), nor two capitals after
 * a digit (`12` + `GB of memory`).
 */
function opensWithAcronym(last: string, text: string, tail: string): boolean {
  const acronym = ACRONYM_PHRASE.exec(text)?.[1];
  if (acronym === undefined || ENDS_LONE_CAPITAL.test(tail)) return false;
  return !(DIGIT.test(last) && acronym.length < 3);
}

/**
 * What each message must have past a shared opening, two letters or digits, or a number with its `/`, `.`, `:` or
 * `%` (`进度 1/3` then `进度 2/3`): a token said twice (`ha` + `ha`) is no line.
 */
const GOES_ON_PAST_OPENING = /^[\p{L}\p{N}](?:[\p{L}\p{N}]|[/.:%]\p{N})/u;

/**
 * Whether `text` opens as `before` did: the same first Latin word (3 letters or more, a blank after it in
 * both), or the same first two Chinese or Japanese characters, each message going on past them with two
 * letters or digits (not punctuation: `创建，交换机 vsw-1 已` + `创建。` are a sentence's tokens), after a message of one line. Progress lines do (`正在创建…`, `Creating …`); a model's
 * tokens, which follow on from each other, rarely say the same words twice in a row, and a short one (`ha` +
 * `ha`) is no line.
 */
function opensAlike(before: Before, text: string): boolean {
  // A progress line is one line: a piece of several is a model's chunk (`网络 | 正常 |\n1. 创建专有` + `网络\n> …`).
  if (before.text.trimEnd().includes('\n')) return false;
  // Its opening is all that is compared: a long message's head is enough.
  const previous = before.text.slice(0, 64).trimStart();
  const word = /^([A-Za-z]{3,})[ \t]+\S/u.exec(previous)?.[1];
  if (word !== undefined) return text.startsWith(word) && /^[ \t]+\S/u.test(text.slice(word.length));
  const opening = previous.slice(0, 2);
  if (opening.length < 2 || ![...opening].every((char) => CJK.test(char)) || !text.startsWith(opening)) return false;
  // Words go on right after the opening in both: punctuation there (`创建，…` + `创建。`) is a sentence's tokens.
  const goesOn = (value: string): boolean => GOES_ON_PAST_OPENING.test(value.slice(opening.length).trimStart());
  return goesOn(previous) && goesOn(text);
}

/** A word's lower-case ending a model cuts off as a token of its own (`Deploy` + `ment`, `Resource` + `s`). */
const WORD_ENDING =
  /^(?:s|es|ed|er|ers|ing|ings|ment|ments|tion|tions|sion|sions|ness|ity|ities|ies|ly|able|ible|ance|ence|ive|ize|ise|ful|less|ship|al|ure)(?![\p{L}\p{N}])/u;
/** Chinese or Japanese of two characters at most and nothing else: a model's token (`## 资源` + `列表`), not a sentence. */
const SHORT_CJK_PIECE = /^[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]{1,2}$/u;
/** One line of text and the line breaks that end it: the rest of a line, not a message of its own lines. */
const ENDS_ITS_LINE = /^[^\n]+\n+$/u;
/** A sentence's end before the line break: a message of its own (`## Result` + `All 3 resources were created.\n`), no heading's rest. */
/** One word's piece or two CJK characters before its end: a token of the heading (`## Next st` + `eps!\n`), not a sentence. */
const ONE_PIECE = /^(?:[\p{Script=Latin}\p{N}]+|[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]{1,2})[.!?\u3002\uff01\uff1f]\n+$/u;
const ENDS_A_SENTENCE = /[.!?\u3002\uff01\uff1f]\n+$/u;

/**
 * Whether `text` goes on with a heading or a quote the facade put on a line of its own (ReplyState.blockLine),
 * as the rest of it a model's tokens cut off, rather than a whole message of its own: one that opens with
 * punctuation (`> 注意` + `：VPC 将被保留。`, `### 3` + `. Next steps`), a word's lower-case ending (`# Deploy` +
 * `ment report`) or two Chinese characters at most (`## 资源` + `列表`), or one line of words that ends with its
 * line break (`# 部署` + `报告\n`, `## VPC Qu` + `ota Report\n\n`): the agent that sent the heading without its
 * line break sends the rest of its line, and the break, next; an agent's whole messages end alike, so one that
 * sent its heading bare does not end the next with a break. Not a line a Markdown block or a list item opens
 * (`## 资源列表` + `- vpc-1\n`), nor one that ends a sentence or that the boundary rules start anew
 * (`## Result` + `Done\n`). A whole message in Chinese or one that opens with a lower-case word
 * (`专有网络已创建`, `created vpc-1 and vsw-1`) starts a line; a longer Chinese piece without its line break
 * (`## 资源` + `列表如下`) does too: nothing at the boundary tells it from a message.
 */
function goesOnWithBlockLine(text: string, before: Before | undefined): boolean {
  if (CARRIES_ON.test(text) || WORD_ENDING.test(text) || SHORT_CJK_PIECE.test(text)) return true;
  if (!ENDS_ITS_LINE.test(text) || before === undefined || (ENDS_A_SENTENCE.test(text) && !ONE_PIECE.test(text))) return false;
  if (startsLineByShape(before.text, text, before.word ?? lastWord(before.text), before.line) === true) return false;
  // What joins at any boundary joins here: a capital after a word (`## Result` + `Done\n`) starts a line.
  return carriesOn(before.text.charAt(before.text.length - 1), text, before);
}

/** The message the reply's current segment holds. */
const messageBefore = (state: ReplyState): Before | undefined =>
  state.segmentText === '' ? undefined : { text: state.segmentText, word: lastWord(state.shownTail), line: state.code.line };

/**
 * A new segment after shown text starts on a new line, so two messages' sentences do not run together;
 * but a working message that carries on the agent's running text goes on where it left off. After a heading
 * or a quote that a whole message opened on a line the facade started (`blockLine`), the next message starts
 * a line whatever it opens with (Chinese, a lower-case word), but for white space, which says where it goes,
 * and a piece that reads as the rest of the heading or the quote (goesOnWithBlockLine). After a table's row or a list
 * item, one that does not go on with it starts after a blank line (line-shapes.ts, needsBlankLine).
 */
export function separatorBefore(text: string, state: ReplyState, flows = false): string {
  if (state.shown === '') return '';
  const separator = lineBreakBefore(text, state, flows);
  // A new message or block after a table row or a list item stands apart from it (needsBlankLine); the agent's running
  // text that goes on after a line break of its own is written as the agent wrote it.
  const startsAnew = separator !== '' || !flows || !state.segmentFlows || state.breakPending;
  const { shownTail, shown } = state;
  return startsAnew && !inCode(state.code) && needsBlankLine(shownTail, separator + text, shownTail.length === shown.length)
    ? `\n${separator}`
    : separator;
}

/** The line break, or none, that separatorBefore puts before `text`, before a table or a list asks for a blank line. */
function lineBreakBefore(text: string, state: ReplyState, flows: boolean): string {
  if (state.shownLast === '\n' || text.startsWith('\n')) return '';
  if (!flows || !state.segmentFlows || state.breakPending) return '\n';
  if (inCode(state.code)) return '';
  if (state.blockLine) return SPACE.test(text.charAt(0)) || goesOnWithBlockLine(text, messageBefore(state)) ? '' : '\n';
  return carriesOn(state.shownLast, text, messageBefore(state)) ? '' : '\n';
}
