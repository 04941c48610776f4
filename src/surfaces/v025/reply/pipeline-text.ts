import { isRecord, type JsonObject } from '../../../model/json.js';
import { countField, textField, type PipelineEnvelope } from '../../../upstream/iac-code/pipeline-events.js';
import { pendingPermission, permissionPromptText } from '../../../upstream/iac-code/permissions.js';

/**
 * What a person reads of iac-code's pipeline envelopes (docs/facade-reply.md, "iac-code's pipeline mode"): the
 * agent's text, a line per step, its questions with numbered options, and why it failed. Everything else
 * (tool traces, progress, diagrams, acknowledgements) is left out, as tool traces are in normal mode.
 *
 * The candidates of a parallel step write at the same time, their text interleaved chunk by chunk; each
 * candidate's text is held and shown as one block when that candidate ends (or its step, or the turn).
 */
export type PipelinePiece = { text: string; key: string } | { break: true };

/** One candidate's text so far, and how to name it. */
export interface HeldCandidate {
  label: string;
  text: string;
}

export type HeldCandidates = ReadonlyMap<string, HeldCandidate>;

export interface PipelineSaid {
  pieces: PipelinePiece[];
  held: HeldCandidates;
}

/** The pieces one pipeline update adds to the reply; at the end of the turn every held candidate is shown. */
export function pipelineSaid(
  envelopes: readonly PipelineEnvelope[],
  held: HeldCandidates,
  metadata: JsonObject | undefined,
  last: boolean,
): PipelineSaid {
  const said: PipelineSaid = { pieces: [], held };
  for (const envelope of envelopes) addEnvelope(said, envelope, metadata);
  if (last) release(said, () => true);
  return said;
}

/** Updates after which no candidate writes on: the end of its step, a question, the end of the run. */
const CANDIDATES_DONE: ReadonlySet<string> = new Set([
  'step_completed',
  'step_failed',
  'input_required',
  'permission_requested',
  'pipeline_completed',
  'pipeline_failed',
  'pipeline_canceled',
]);

const runIdOf = (coordinate: JsonObject | undefined, fallback: string): string =>
  textField(coordinate?.runId) ?? textField(coordinate?.id) ?? fallback;

function addEnvelope(said: PipelineSaid, envelope: PipelineEnvelope, metadata: JsonObject | undefined): void {
  const { eventType, data, step, candidate } = envelope;
  const stepRun = runIdOf(step, 'pipeline');
  if (candidate) {
    addCandidateEnvelope(said, envelope, runIdOf(candidate, 'candidate'));
    return;
  }
  // What the candidates wrote comes before a question or the end of the run.
  if (CANDIDATES_DONE.has(eventType)) release(said, () => true);
  switch (eventType) {
    case 'step_started':
      said.pieces.push({ text: stepHeading(step, data), key: `pipeline:step:${stepRun}` });
      return;
    case 'text_delta':
      return say(said, data.text, `pipeline:text:${stepRun}`);
    case 'tool_started':
    case 'tool_result':
      said.pieces.push({ break: true });
      return;
    case 'step_failed':
      return say(said, textField(data.errorSummary) ?? textField(data.error), `pipeline:failed:${stepRun}`);
    case 'pipeline_failed':
      return say(said, data.errorSummary, 'pipeline:failed');
    case 'pipeline_canceled':
      return say(said, data.reason, 'pipeline:canceled');
    case 'pipeline_handoff_ready':
      return say(said, data.summary, 'pipeline:summary');
    case 'input_required':
      return say(said, questionText(data), `pipeline:question:${textField(data.inputId) ?? stepRun}`);
    case 'permission_requested': {
      const prompt = pendingPermission(metadata);
      if (prompt) said.pieces.push({ text: permissionPromptText(prompt), key: `p:${prompt.inputId}` });
      return;
    }
    default:
      return;
  }
}

function addCandidateEnvelope(said: PipelineSaid, envelope: PipelineEnvelope, run: string): void {
  const { eventType, data, candidate } = envelope;
  if (eventType === 'text_delta' && typeof data.text === 'string' && data.text !== '') {
    const before = said.held.get(run);
    const label = before?.label ?? candidateLabel(candidate);
    said.held = new Map(said.held).set(run, { label, text: (before?.text ?? '') + data.text });
  } else if (eventType === 'candidate_completed' || eventType === 'candidate_failed') {
    release(said, (held) => held === run);
  }
}

/** Shows the held candidates `which` picks, in the order they began, and forgets them. */
function release(said: PipelineSaid, which: (run: string) => boolean): void {
  let kept: Map<string, HeldCandidate> | undefined;
  for (const [run, candidate] of said.held) {
    if (!which(run)) continue;
    kept ??= new Map(said.held);
    kept.delete(run);
    if (candidate.text.trim() !== '') said.pieces.push({ text: `${candidate.label}:\n${candidate.text}`, key: `pipeline:candidate:${run}` });
  }
  if (kept) said.held = kept;
}

function say(said: PipelineSaid, text: unknown, key: string): void {
  if (typeof text === 'string' && text !== '') said.pieces.push({ text, key });
}

/** `intent_parsing` → `Intent parsing`, as iac-code's own display names read. */
const displayName = (id: string): string => {
  const words = id.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function stepHeading(step: JsonObject | undefined, data: JsonObject): string {
  const name = displayName(textField(data.name) ?? textField(step?.id) ?? 'next step');
  const index = countField(step?.index ?? data.index);
  const total = countField(step?.total ?? data.total);
  return index !== undefined && total !== undefined ? `Step ${index}/${total}: ${name}` : `Step: ${name}`;
}

function candidateLabel(candidate: JsonObject | undefined): string {
  const index = countField(candidate?.index);
  const name = textField(candidate?.name);
  const numbered = index === undefined ? 'Candidate' : `Candidate ${index + 1}`;
  return name ? `${numbered} (${name})` : numbered;
}

/**
 * A question as a person reads it: what went wrong with the last answer, the question, what a deployment
 * would be, and the options numbered from 1. iac-code takes a number for `ask_user_question` and
 * `deployment_confirmation` itself; for a candidate the facade turns the number into the option's name
 * (src/surfaces/v025/pipeline-answers.ts).
 */
function questionText(data: JsonObject): string | undefined {
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
  const options = (Array.isArray(data.options) ? data.options : []).filter(isRecord).map(optionText);
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

function optionText(option: JsonObject): string {
  const label = textField(option.label) ?? textField(option.name) ?? textField(option.action) ?? textField(option.id) ?? '';
  const detail = textField(option.description) ?? textField(option.summary);
  return detail ? `${label} — ${detail}` : label;
}
