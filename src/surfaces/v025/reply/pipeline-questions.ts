import { isRecord, type JsonObject } from '../../../model/json.js';
import { textField } from '../../../upstream/iac-code/fields.js';
import type { FacadeWords } from './words.js';

/**
 * A question as a person reads it: what went wrong with the last answer, the question, what a deployment
 * would be, and the options numbered from 1. iac-code takes a number for `ask_user_question` and
 * `deployment_confirmation` itself; for a candidate the facade turns the number into the option's name
 * (src/surfaces/v025/pipeline-answers.ts).
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

function replyHint(data: JsonObject, words: FacadeWords): string {
  if (!NUMBERED_KINDS.has(data.kind)) return words.replyWithChoice;
  return data.allowFreeText === true ? words.replyWithNumberOrWords : words.replyWithNumber;
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
