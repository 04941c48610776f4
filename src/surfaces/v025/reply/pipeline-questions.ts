import { isRecord, type JsonObject } from '../../../model/json.js';
import { textField } from '../../../upstream/iac-code/fields.js';
import { pipelineEnvelopes } from '../../../upstream/iac-code/pipeline-events.js';
import type { FacadeWords } from './words.js';

/**
 * The deployment a pipeline turn waits on its user to confirm (`deployment_confirmation`: its prompt, summary,
 * template and options `[{action, name}]`), from the metadata of the update that ends the turn (or of the task
 * that keeps it). iac-code names this question only in that update's envelopes, never in `iac_code.input`.
 */
export function pendingDeploymentConfirmation(metadata: JsonObject | undefined): JsonObject | undefined {
  const asked = pipelineEnvelopes(metadata)?.findLast((envelope) => envelope.eventType === 'input_required')?.data;
  return asked?.kind === 'deployment_confirmation' ? asked : undefined;
}

/**
 * A question as a person reads it: what went wrong with the last answer, the question, what a deployment
 * would be, and the options numbered from 1. iac-code takes a number for `ask_user_question` itself; for a
 * candidate the facade turns the number into the option's name, for a deployment into the option's action
 * (src/surfaces/v025/turn/pipeline-answers.ts).
 */
export function questionText(data: JsonObject, words: FacadeWords): string | undefined {
  const lines: string[] = [];
  const problem = textField(data.validation_message) ?? (textField(data.validation_error) ? words.answerNotUsable : undefined);
  if (problem) lines.push(problem);
  const prompt = textField(data.question) ?? textField(data.prompt);
  if (prompt) lines.push(prompt);
  if (data.kind === 'deployment_confirmation') {
    const summary = textField(data.solution_summary);
    const template = textField(data.template_url);
    if (summary) lines.push(summary);
    if (template) lines.push(words.template(template));
  }
  const options = (Array.isArray(data.options) ? data.options : []).map((option) => optionText(option, words));
  options.forEach((option, at) => lines.push(`${at + 1}. ${option}`));
  if (options.length > 0) lines.push(replyHint(data, words));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The kinds whose answer may be an option's number (a question iac-code asks again after a bad answer names none). */
const NUMBERED_KINDS: ReadonlySet<unknown> = new Set(['ask_user_question', 'candidate_selection', 'deployment_confirmation', undefined]);

/**
 * The kinds whose answer may also be the user's own words whatever the question says: iac-code's model reads a
 * deployment confirmation that picks no option ("change the instance type, then deploy").
 */
const WORDED_KINDS: ReadonlySet<unknown> = new Set(['deployment_confirmation']);

function replyHint(data: JsonObject, words: FacadeWords): string {
  if (!NUMBERED_KINDS.has(data.kind)) return words.replyWithChoice;
  return data.allowFreeText === true || WORDED_KINDS.has(data.kind) ? words.replyWithNumberOrWords : words.replyWithNumber;
}

/**
 * An option as listed. Every option keeps its place, whatever its shape, so the numbers shown are the
 * numbers iac-code counts.
 */
function optionText(option: unknown, words: FacadeWords): string {
  if (typeof option === 'string' || typeof option === 'number') return String(option);
  if (!isRecord(option)) return words.unnamedOption;
  const label = textField(option.label) ?? textField(option.name) ?? textField(option.action) ?? textField(option.id) ?? words.unnamedOption;
  const detail = textField(option.description) ?? textField(option.summary);
  return detail ? `${label} — ${detail}` : label;
}
