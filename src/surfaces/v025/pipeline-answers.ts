import { withFields, type SendMessageRequest, type Task } from '../../model/index.js';
import { isRecord, type JsonObject } from '../../model/json.js';
import { joinText } from '../../translate/index.js';
import { pendingInput } from '../../upstream/iac-code/events.js';
import { textField } from '../../upstream/iac-code/fields.js';

/**
 * A Bailian user picks one of the candidates iac-code's pipeline offers by its number, as the facade
 * lists them from 1 (reply/pipeline-questions.ts). iac-code reads a bare number as words for its model to
 * interpret, and "方案2" as the third candidate (it counts from 0); the option's exact name is the one
 * answer it takes as it is. So a reply that only names a listed number becomes that option's name.
 */
export function answerCandidateChoice(request: SendMessageRequest, paused: Task | undefined): SendMessageRequest {
  if (paused?.status.state !== 'TASK_STATE_INPUT_REQUIRED') return request;
  const labels = candidateLabels(pendingInput(paused.metadata, 'candidate_selection'));
  if (!labels) return request;
  const { message } = request;
  if (message.parts.some((part) => part.text === undefined)) return request;
  const picked = listedNumber(joinText(message.parts));
  const label = picked === undefined ? undefined : labels[picked - 1];
  return label ? withFields(request, { message: withFields(message, { parts: [{ text: label }] }) }) : request;
}

/**
 * The number a reply names an option by, as people write it: `2`, `2.`, `２`, `#2`, `方案2`, `第2个`,
 * `选2`, `candidate 2`, `候補2`, `2番`. iac-code would read `方案2` and `candidate 2` as the third candidate.
 */
const NUMBERED_REPLY = /^(?:#|no\.?|option|candidate|plan|方案|候选|候補|第|选择?|我选|我要)?\s*(\d{1,3})\s*(?:个|号|番目?|\.|。)?$/i;

function listedNumber(reply: string): number | undefined {
  const match = NUMBERED_REPLY.exec(reply.normalize('NFKC').trim());
  return match ? Number(match[1]) : undefined;
}

/** The options of a pending candidate choice, in the order iac-code lists them. */
function candidateLabels(input: JsonObject | undefined): string[] | undefined {
  if (!input || !Array.isArray(input.options)) return undefined;
  const labels = input.options.filter(isRecord).map((option) => textField(option.label) ?? '');
  return labels.length > 0 && labels.every((label) => label !== '') ? labels : undefined;
}
