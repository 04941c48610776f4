import { withFields, type SendMessageRequest, type Task } from '../../model/index.js';
import { isRecord, type JsonObject } from '../../model/json.js';
import { joinText } from '../../translate/index.js';
import { pendingInput } from '../../upstream/iac-code/events.js';
import { textField } from '../../upstream/iac-code/fields.js';

/**
 * A Bailian user picks one of the candidates iac-code's pipeline offers by its number, as the facade
 * lists them from 1 (reply/pipeline-questions.ts), or by its name. iac-code reads a bare number as words
 * for its model to interpret, and "方案2" as the third candidate (it counts from 0); the option's exact
 * name is the one answer it takes as it is. So a reply that only names a listed number, or names one
 * option by the head or the rest of its label ("方案B", "B", "SAE" for "方案B：SAE"), becomes that
 * option's name; anything else (words, a question like "2?") goes to iac-code as it was said.
 */
export function answerCandidateChoice(request: SendMessageRequest, paused: Task | undefined): SendMessageRequest {
  if (paused?.status.state !== 'TASK_STATE_INPUT_REQUIRED') return request;
  const labels = candidateLabels(pendingInput(paused.metadata, 'candidate_selection'));
  if (!labels) return request;
  const { message } = request;
  if (message.parts.some((part) => part.text === undefined)) return request;
  const said = joinText(message.parts);
  const picked = listedNumber(said);
  const label = picked === undefined ? namedLabel(said, labels) : labels[picked - 1];
  return label ? withFields(request, { message: withFields(message, { parts: [{ text: label }] }) }) : request;
}

/**
 * The number a reply names an option by, as people write it: `2`, `2.`, `２`, `#2`, `方案2`, `第2个`,
 * `选2`, `选第2个`, `第2个方案`, `candidate 2`, `候補2`, `2番`, `2つ目`, and the same with a numeral from 一
 * to 十 (`第二个`, `方案二`, `二番目`). iac-code would read `方案2` and `candidate 2` as the third candidate.
 */
const NUMBERED_REPLY =
  /^(?:(?:选择?|我选|我要)\s*)?(?<before>#|no\.?|option|candidate|plan|方案|候选|候補|第)?\s*(?<number>\d{1,3}|[一二三四五六七八九十])\s*(?<after>个(?:方案|候选)?|号|番目?|つ目|\.|。)?$/i;

/** The numerals a reply may pick by; not 两, which counts ("选两个" picks two), nor 〇, no option's number. */
const NUMERALS = '一二三四五六七八九十';

function listedNumber(reply: string): number | undefined {
  const groups = NUMBERED_REPLY.exec(reply.normalize('NFKC').trim())?.groups;
  if (!groups?.number) return undefined;
  const numeral = NUMERALS.indexOf(groups.number) + 1;
  if (numeral === 0) return Number(groups.number);
  // "一个" or "三个" alone counts ("one", "three of them") rather than picks: a numeral and 个 pick with 第 only.
  return groups.after?.startsWith('个') && groups.before !== '第' ? undefined : numeral;
}

/** Words a reply may put before the name it picks ("选方案B", "I pick SAE"). */
const PICKING = /^(?:选择?|我选|我要|i(?:'ll)? (?:pick|choose|take)|pick|choose)\s*/i;

/**
 * The one label a reply names: the whole label, its head before the colon ("方案B"), its rest ("SAE"),
 * or the letter the head ends with ("B"), compared without case; undefined when none or several match.
 */
function namedLabel(reply: string, labels: readonly string[]): string | undefined {
  const name = fold(
    reply
      .normalize('NFKC')
      .trim()
      .replace(/[.。!！]+$/u, '')
      .replace(PICKING, ''),
  );
  if (name === '') return undefined;
  const matches = labels.filter((label) => {
    const [head = '', rest = ''] = label.normalize('NFKC').split(/[:：]\s*/u, 2);
    const letter = /(?:^|[^a-z])([a-z])$/i.exec(head)?.[1];
    return [fold(label.normalize('NFKC')), fold(head), fold(rest), letter ? fold(letter) : ''].includes(name);
  });
  return matches.length === 1 ? matches[0] : undefined;
}

const fold = (text: string): string => text.trim().toLowerCase();

/** The options of a pending candidate choice, in the order iac-code lists them. */
function candidateLabels(input: JsonObject | undefined): string[] | undefined {
  if (!input || !Array.isArray(input.options)) return undefined;
  const labels = input.options.filter(isRecord).map((option) => textField(option.label) ?? '');
  return labels.length > 0 && labels.every((label) => label !== '') ? labels : undefined;
}
