import { withFields, type SendMessageRequest, type Task } from '../../model/index.js';
import { isRecord } from '../../model/json.js';
import { joinText } from '../../translate/index.js';
import { textField } from '../../upstream/iac-code/pipeline-events.js';

/**
 * A Bailian user picks one of the candidates iac-code's pipeline offers by its number, as the facade
 * lists them (reply/pipeline-text.ts). iac-code reads a bare number as words for its model to interpret,
 * and "plan 2" as the third candidate (it counts from 0); the option's exact name is the one answer it
 * takes as it is. So a reply that is only a listed number becomes that option's name.
 */
export function answerCandidateChoice(request: SendMessageRequest, paused: Task | undefined): SendMessageRequest {
  if (paused?.status.state !== 'TASK_STATE_INPUT_REQUIRED') return request;
  const labels = candidateLabels(paused.metadata?.iac_code);
  if (!labels) return request;
  const { message } = request;
  const said = joinText(message.parts).trim();
  if (!/^\d{1,3}$/.test(said) || message.parts.some((part) => part.text === undefined)) return request;
  const label = labels[Number(said) - 1];
  return label ? withFields(request, { message: withFields(message, { parts: [{ text: label }] }) }) : request;
}

/** The options of a pending candidate choice, in the order iac-code lists them. */
function candidateLabels(iacCode: unknown): string[] | undefined {
  const input = isRecord(iacCode) ? iacCode.input : undefined;
  if (!isRecord(input) || input.kind !== 'candidate_selection' || !Array.isArray(input.options)) return undefined;
  const labels = input.options.filter(isRecord).map((option) => textField(option.label) ?? '');
  return labels.length > 0 && labels.every((label) => label !== '') ? labels : undefined;
}
