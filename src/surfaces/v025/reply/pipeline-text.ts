import { withFields, type TaskArtifactUpdateEvent } from '../../../model/index.js';
import type { JsonObject } from '../../../model/json.js';
import { sanitizeUpstreamText } from '../../../scrub-text.js';
import { countField, textField } from '../../../upstream/iac-code/fields.js';
import type { PipelineEnvelope } from '../../../upstream/iac-code/pipeline-events.js';
import { pendingPermission } from '../../../upstream/iac-code/permissions.js';
import { permissionPromptText } from './permission-prompt.js';
import { questionText } from './pipeline-questions.js';
import { stepName, type FacadeWords } from './words.js';

/**
 * What a person reads of iac-code's pipeline envelopes (docs/facade-reply.md, "iac-code's pipeline mode"):
 * the agent's text, a line per step, its questions with numbered options, and why it failed. Everything
 * else (tool traces, progress, diagrams, acknowledgements) is left out, as tool traces are in normal mode.
 *
 * The candidates of a parallel step write at the same time, their text interleaved chunk by chunk; each
 * candidate's text is held and shown as one block when that candidate ends, or before a question, or
 * when its step or the turn ends, however the turn ends. A file a candidate writes (its template) comes
 * while it still writes: it is held too, and shown after that candidate's block.
 */
export type PipelinePiece = { text: string; key: string; ends?: true } | { break: true } | { artifact: TaskArtifactUpdateEvent };

/** One candidate's text so far, the files it wrote, and how to name it. */
export interface HeldCandidate {
  /** The candidate whatever its attempt: a restarted candidate's earlier draft is dropped. */
  id: string;
  label: string;
  text: string;
  artifacts: readonly TaskArtifactUpdateEvent[];
}

/** What is held while candidates write: their blocks, and files not yet known to be one's (iac-code names the candidate just after). */
export interface PipelineHold {
  readonly candidates: ReadonlyMap<string, HeldCandidate>;
  readonly artifacts: readonly TaskArtifactUpdateEvent[];
}

/**
 * The envelope the facade makes where the recovery of a broken stream could not tell what iac-code said
 * (../turn-pipeline.ts); no iac-code event is named so.
 */
export const WORDS_LOST_EVENT = 'a2a_bridge_words_lost';

export const NOTHING_HELD: PipelineHold = { candidates: new Map(), artifacts: [] };

export const holdsNothing = (hold: PipelineHold): boolean => hold.candidates.size === 0 && hold.artifacts.length === 0;

export const holdingArtifact = (hold: PipelineHold, artifact: TaskArtifactUpdateEvent): PipelineHold =>
  withFields(hold, { artifacts: [...hold.artifacts, artifact] });

interface PipelineSaid {
  pieces: PipelinePiece[];
  held: ReadonlyMap<string, HeldCandidate>;
  unplaced: readonly TaskArtifactUpdateEvent[];
  readonly words: FacadeWords;
}

/**
 * The pieces one pipeline update adds to the reply, in order. When the update ends the turn (`last`),
 * every candidate still held is shown before what ends it (the question, the reason).
 */
export function pipelineSaid(
  envelopes: readonly PipelineEnvelope[],
  hold: PipelineHold,
  metadata: JsonObject | undefined,
  last: boolean,
  words: FacadeWords,
): { pieces: PipelinePiece[]; hold: PipelineHold } {
  const said: PipelineSaid = { pieces: [], held: hold.candidates, unplaced: hold.artifacts, words };
  const result = () => ({
    pieces: said.pieces,
    hold: said.held === hold.candidates && said.unplaced === hold.artifacts ? hold : { candidates: said.held, artifacts: said.unplaced },
  });
  for (const envelope of envelopes) addEnvelope(said, envelope, metadata);
  if (!last) return result();
  const ending = said.pieces.findLastIndex((piece) => 'ends' in piece);
  const before = ending < 0 ? said.pieces : said.pieces.slice(0, ending);
  const after = ending < 0 ? [] : said.pieces.slice(ending);
  said.pieces = before;
  release(said, () => true);
  said.pieces.push(...after);
  return result();
}

/** Every held candidate's block and file, for a turn that ends some other way (a plain status, a break-off). */
export const heldBlocks = (hold: PipelineHold, words: FacadeWords): PipelinePiece[] => pipelineSaid([], hold, undefined, true, words).pieces;

/** Updates after which no candidate writes on: the next step or the end of its own, a question, the end of the run. */
const CANDIDATES_DONE: ReadonlySet<string> = new Set([
  'step_started',
  'step_completed',
  'step_failed',
  'input_required',
  'permission_requested',
  'backup_blocked',
  'pipeline_completed',
  'pipeline_failed',
  'pipeline_canceled',
]);

/** What a candidate's own envelopes change: its text, a line break after its tool calls, its end. */
const CANDIDATE_OWN: ReadonlySet<string> = new Set([
  'candidate_started',
  'text_delta',
  'tool_started',
  'tool_result',
  'candidate_completed',
  'candidate_failed',
]);

/** Envelopes that ask the user something (a candidate's too): a turn ends on one, whatever its status says. */
export const USER_ASKS: ReadonlySet<string> = new Set(['input_required', 'permission_requested']);

const runIdOf = (coordinate: JsonObject | undefined, fallback: string): string =>
  textField(coordinate?.runId) ?? textField(coordinate?.id) ?? fallback;

function addEnvelope(said: PipelineSaid, envelope: PipelineEnvelope, metadata: JsonObject | undefined): void {
  const { eventType, data, step, candidate } = envelope;
  if (candidate && CANDIDATE_OWN.has(eventType)) {
    addCandidateEnvelope(said, envelope, candidate);
    return;
  }
  if (candidate && eventType === 'artifact_created') {
    placeArtifact(said, candidate, textField(envelope.data.artifactId));
    return;
  }
  // Of a candidate's other envelopes only what it asks the user reaches the reply.
  if (candidate && !USER_ASKS.has(eventType)) return;
  if (eventType === WORDS_LOST_EVENT) return sayWordsLost(said, textField(data.gapId) ?? 'gap');
  const stepRun = runIdOf(step, 'pipeline');
  // What the candidates wrote comes before a question, a reason or the next step.
  if (CANDIDATES_DONE.has(eventType)) release(said, () => true);
  switch (eventType) {
    case 'step_started':
      said.pieces.push({ text: stepHeading(step, data, said.words), key: `pipeline:step:${stepRun}` });
      return;
    case 'text_delta':
      return say(said, data.text, `pipeline:text:${stepRun}`);
    case 'tool_started':
    case 'tool_result':
      said.pieces.push({ break: true });
      return;
    case 'step_failed':
      return say(said, failureText(textField(data.errorSummary) ?? textField(data.error)), `pipeline:failed:${stepRun}`, true);
    case 'pipeline_failed':
      return say(said, failureText(textField(data.errorSummary)), 'pipeline:failed', true);
    case 'pipeline_canceled':
      return say(said, data.reason, 'pipeline:canceled', true);
    case 'backup_blocked':
      return say(said, textField(data.reason) ?? textField(data.message) ?? textField(data.error), 'pipeline:blocked', true);
    case 'pipeline_handoff_ready':
      return say(said, data.summary, 'pipeline:summary', true);
    case 'input_required':
      return say(said, questionText(data, said.words), `pipeline:question:${textField(data.inputId) ?? stepRun}`, true);
    case 'permission_requested': {
      const prompt = pendingPermission(metadata);
      if (prompt) say(said, permissionPromptText(prompt, said.words), `p:${prompt.inputId}`, true);
      return;
    }
    default:
      return;
  }
}

function addCandidateEnvelope(said: PipelineSaid, { eventType, data }: PipelineEnvelope, candidate: JsonObject): void {
  const run = runIdOf(candidate, 'candidate');
  const id = textField(candidate.id) ?? run;
  const before = said.held.get(run);
  if (eventType === 'candidate_started') {
    // A restarted candidate writes its text again under a new run: its earlier draft is not its answer,
    // though a file it wrote was written, and is shown once no candidate writes. From its start on, a
    // candidate is held, so that a file it writes before its first word is shown with its block.
    const earlier = (heldRun: string, held: HeldCandidate): boolean => held.id === id && heldRun !== run;
    const dropped = [...said.held].filter(([heldRun, held]) => earlier(heldRun, held)).map(([, held]) => held);
    if (before && dropped.length === 0) return;
    const kept = new Map([...said.held].filter(([heldRun, held]) => !earlier(heldRun, held)));
    said.held = kept.set(run, before ?? { id, label: candidateLabel(candidate, said.words), text: '', artifacts: [] });
    if (dropped.length > 0) said.unplaced = [...dropped.flatMap((held) => held.artifacts), ...said.unplaced];
  } else if (eventType === 'text_delta' && typeof data.text === 'string' && data.text !== '') {
    const label = before?.label ?? candidateLabel(candidate, said.words);
    said.held = new Map(said.held).set(run, { id, label, text: (before?.text ?? '') + data.text, artifacts: before?.artifacts ?? [] });
  } else if ((eventType === 'tool_started' || eventType === 'tool_result') && before && !before.text.endsWith('\n')) {
    said.held = new Map(said.held).set(run, withFields(before, { text: `${before.text}\n` }));
  } else if (eventType === 'candidate_completed' || eventType === 'candidate_failed') {
    release(said, (held) => held === run);
  }
}

/**
 * Words lost at this place: what the candidates wrote before it is shown as it stands (what they write
 * after it comes in blocks of its own, never joined to text from before the gap), then the line, then the
 * files not yet known to be a candidate's: the envelope that said whose may be among those lost, and a
 * template shown after the block of a candidate that did not write it would mislead.
 */
function sayWordsLost(said: PipelineSaid, gapId: string): void {
  const unplaced = said.unplaced;
  said.unplaced = [];
  release(said, () => true);
  said.pieces.push({ text: said.words.pipelineWordsLost, key: `pipeline:lost:${gapId}` });
  for (const artifact of unplaced) said.pieces.push({ artifact });
}

/** A held file iac-code says a candidate wrote joins that candidate's block (one that wrote no text yet too). */
function placeArtifact(said: PipelineSaid, candidate: JsonObject, artifactId: string | undefined): void {
  // Every chunk of it, in order: a file may come in pieces.
  const chunks = said.unplaced.filter((held) => held.artifact.artifactId === artifactId);
  if (chunks.length === 0) return;
  const run = runIdOf(candidate, 'candidate');
  const before = said.held.get(run);
  const owner = before ?? { id: textField(candidate.id) ?? run, label: candidateLabel(candidate, said.words), text: '', artifacts: [] };
  said.unplaced = said.unplaced.filter((held) => held.artifact.artifactId !== artifactId);
  said.held = new Map(said.held).set(run, withFields(owner, { artifacts: [...owner.artifacts, ...chunks] }));
}

/**
 * Shows the held candidates `which` picks, in the order they began, each block followed by its files, and
 * forgets them. Once no candidate is left, files held for none of them are shown too.
 */
function release(said: PipelineSaid, which: (run: string) => boolean): void {
  let kept: Map<string, HeldCandidate> | undefined;
  for (const [run, candidate] of said.held) {
    if (!which(run)) continue;
    kept ??= new Map(said.held);
    kept.delete(run);
    const text = candidate.text.trimEnd();
    if (text.trim() !== '') said.pieces.push({ text: `${candidate.label}\n${text}`, key: `pipeline:candidate:${run}` });
    for (const artifact of candidate.artifacts) said.pieces.push({ artifact });
  }
  if (kept) said.held = kept;
  if (said.held.size > 0 || said.unplaced.length === 0) return;
  for (const artifact of said.unplaced) said.pieces.push({ artifact });
  said.unplaced = [];
}

/** A step's or the pipeline's failure reason, scrubbed as any failure's reason is (core/redact.ts). */
const failureText = (text: string | undefined): string | undefined => (text === undefined ? undefined : sanitizeUpstreamText(text));

function say(said: PipelineSaid, text: unknown, key: string, ends?: true): void {
  if (typeof text === 'string' && text !== '') said.pieces.push(ends ? { text, key, ends } : { text, key });
}

/** `Step 2/5: Architecture planning`; a step run again after a rollback says which attempt it is. */
function stepHeading(step: JsonObject | undefined, data: JsonObject, words: FacadeWords): string {
  const id = textField(data.name) ?? textField(step?.id);
  const name = id ? stepName(words, id) : words.nextStep;
  const index = countField(step?.index ?? data.index);
  const total = countField(step?.total ?? data.total);
  const attempt = countField(step?.attempt ?? data.attempt) ?? 1;
  const heading = words.step(name, index !== undefined && total !== undefined ? { index, total } : undefined);
  return attempt > 1 ? words.attempt(heading, attempt) : heading;
}

/** How a candidate's block is headed: `Candidate 1 (name):`, iac-code's 0-based index counted from 1. */
function candidateLabel(candidate: JsonObject, words: FacadeWords): string {
  const index = countField(candidate.index);
  return words.candidate(index === undefined ? undefined : index + 1, textField(candidate.name));
}
