import { isRecord, type JsonObject } from '../../../model/json.js';
import { textField } from '../../../upstream/iac-code/fields.js';

/**
 * A question as a person reads it: what went wrong with the last answer, the question, what a deployment
 * would be, and the options numbered from 1. iac-code takes a number for `ask_user_question` and
 * `deployment_confirmation` itself; for a candidate the facade turns the number into the option's name
 * (src/surfaces/v025/pipeline-answers.ts).
 */
export function questionText(data: JsonObject): string | undefined {
  const lines: string[] = [];
  const problem = textField(data.validation_message) ?? (textField(data.validation_error) ? 'That answer could not be used.' : undefined);
  if (problem) lines.push(problem);
  const prompt = textField(data.question) ?? textField(data.prompt);
  if (prompt) lines.push(prompt);
  if (data.kind === 'deployment_confirmation') {
    const summary = textField(data.solution_summary);
    const template = textField(data.template_url);
    if (summary) lines.push(summary);
    if (template) lines.push(`Template: ${template}`);
  }
  const options = (Array.isArray(data.options) ? data.options : []).map(optionText);
  options.forEach((option, at) => lines.push(`${at + 1}. ${option}`));
  if (options.length > 0) lines.push(replyHint(data));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The kinds whose answer may be an option's number (a question iac-code asks again after a bad answer names none). */
const NUMBERED_KINDS: ReadonlySet<unknown> = new Set(['ask_user_question', 'candidate_selection', 'deployment_confirmation', undefined]);

function replyHint(data: JsonObject): string {
  if (!NUMBERED_KINDS.has(data.kind)) return 'Reply with your choice.';
  return data.allowFreeText === true ? 'Reply with a number, or in your own words.' : 'Reply with a number.';
}

/**
 * An option as listed. Every option keeps its place, whatever its shape, so the numbers shown are the
 * numbers iac-code counts.
 */
function optionText(option: unknown): string {
  if (typeof option === 'string' || typeof option === 'number') return String(option);
  if (!isRecord(option)) return '(an option without a name)';
  const label = textField(option.label) ?? textField(option.name) ?? textField(option.action) ?? textField(option.id) ?? '(an option without a name)';
  const detail = textField(option.description) ?? textField(option.summary);
  return detail ? `${label} — ${detail}` : label;
}
