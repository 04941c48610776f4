import { withFields, type SendMessageRequest, type Task } from '../../../model/index.js';
import { isRecord, type JsonObject } from '../../../model/json.js';
import { joinText } from '../../../translate/index.js';
import { pendingInput } from '../../../upstream/iac-code/events.js';
import { textField } from '../../../upstream/iac-code/fields.js';
import { pendingDeploymentConfirmation } from '../reply/pipeline-questions.js';

/**
 * A Bailian user answers the choices iac-code's pipeline waits on by the number the facade lists an option under
 * (reply/pipeline-questions.ts, from 1) or by its name; iac-code takes neither as such:
 * - a candidate (`candidate_selection`): iac-code reads a bare number as words for its model to interpret, and
 *   "方案2" as the third candidate (it counts from 0); the option's exact name is the one answer it takes as it is;
 * - a deployment to confirm (`deployment_confirmation`): iac-code carries out a structured answer,
 *   `{"action":"confirm"}`, exactly as sent, and hands anything else to its model, which may read "1" or "确认部署"
 *   otherwise than the user meant (a deployment is no place for that); a confirmation or a cancel is sent so, a
 *   change its user has yet to spell out as the option's words.
 * So a reply that only names a listed number, or names one option by the head or the rest of its label ("方案B",
 * "B", "SAE" for "方案B：SAE"), becomes that option's answer; anything else (words, a question like "2?", a
 * number no option has) goes to iac-code as it was said.
 */
export function answerPipelineChoice(request: SendMessageRequest, paused: Task | undefined): SendMessageRequest {
  if (paused?.status.state !== 'TASK_STATE_INPUT_REQUIRED') return request;
  const options = waitingChoice(paused.metadata);
  if (!options) return request;
  const { message } = request;
  if (message.parts.some((part) => part.text === undefined)) return request;
  const said = joinText(message.parts);
  const picked = listedNumber(said);
  const index =
    picked === undefined
      ? namedOption(
          said,
          options.map(({ label }) => label),
        )
      : picked - 1;
  const answer = index === undefined ? undefined : options[index]?.answer;
  return answer ? withFields(request, { message: withFields(message, { parts: [{ text: answer }] }) }) : request;
}

/** An option as the user reads it listed, and the answer iac-code takes for it. */
interface ListedOption {
  label: string;
  answer: string;
}

/** The options of the choice the task waits on, in the order iac-code lists them (and the facade numbers them). */
function waitingChoice(metadata: JsonObject | undefined): ListedOption[] | undefined {
  const candidates = listed(pendingInput(metadata, 'candidate_selection'), (option) => {
    const label = textField(option.label);
    return label === undefined ? undefined : { label, answer: label };
  });
  return (
    candidates ??
    listed(pendingDeploymentConfirmation(metadata), (option) => {
      // Listed by its name, or by its action when it has none (pipeline-questions.ts).
      const action = textField(option.action);
      const label = textField(option.name) ?? action;
      if (action === undefined || label === undefined) return undefined;
      return { label, answer: WHOLE_ACTIONS.has(action.toLowerCase()) ? JSON.stringify({ action }) : label };
    })
  );
}

/**
 * The deployment actions whose structured answer says all its user meant. `adjust` and `reselect` carry what to
 * change (the new parameters, the new goal), which the user has not said yet: they go as the option's words, for
 * iac-code's model to ask about, not as a structured answer that changes nothing.
 */
const WHOLE_ACTIONS: ReadonlySet<string> = new Set(['confirm', 'cancel']);

/** Every option of `input` read so; undefined when there is none, or one cannot be (the numbers would be off). */
function listed(input: JsonObject | undefined, read: (option: JsonObject) => ListedOption | undefined): ListedOption[] | undefined {
  if (!input || !Array.isArray(input.options) || input.options.length === 0) return undefined;
  const options = input.options.map((option) => (isRecord(option) ? read(option) : undefined));
  return options.every((option): option is ListedOption => option !== undefined) ? options : undefined;
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
 * The place of the one label a reply names: the whole label, its head before the colon ("方案B"), its rest
 * ("SAE"), or the letter the head ends with ("B"), compared without case; undefined when none or several match.
 */
function namedOption(reply: string, labels: readonly string[]): number | undefined {
  const name = fold(
    reply
      .normalize('NFKC')
      .trim()
      .replace(/[.。!！]+$/u, '')
      .replace(PICKING, ''),
  );
  if (name === '') return undefined;
  const matches = labels.flatMap((label, at) => {
    const [head = '', rest = ''] = label.normalize('NFKC').split(/[:：]\s*/u, 2);
    const letter = /(?:^|[^a-z])([a-z])$/i.exec(head)?.[1];
    return [fold(label.normalize('NFKC')), fold(head), fold(rest), letter ? fold(letter) : ''].includes(name) ? [at] : [];
  });
  return matches.length === 1 ? matches[0] : undefined;
}

const fold = (text: string): string => text.trim().toLowerCase();
