import { asyncIteratorOf, SteppedStage, type Step } from '../../../core/stepped-stages.js';
import {
  isActiveState,
  isExplainedState,
  withFields,
  type StreamResponse,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from '../../../model/index.js';
import { joinText } from '../../../translate/index.js';
import { isAssistantFinal } from '../../../upstream/iac-code/events.js';
import { missedEnd } from './rest-missed-end.js';
import type { TurnSoFar } from './turn-rest.js';

/**
 * The rest of a cut turn (cut-turns.ts) is a reply of its own, which opens after what its user read before the
 * cut: the reply's repeat rules (reply/rules.ts) compare what comes with that reply alone. What the agent says
 * again of its turn from before the cut would be shown whole: iac-code closes every turn with the text after
 * its last tool call again (its `assistantFinal`: in a turn without a tool, the whole answer); an agent that
 * streams its answer as a file's chunks closes the turn with it whole as its status message (the a2a-js
 * samples); and an agent may send its streamed answer again as an artifact of text (the demo agent's
 * `reply.txt`). So the user would read the answer twice, the second time from its start. Such a restatement of
 * the turn's text, from the start of one of its messages or files to its end, counted across the cut, is left
 * out here, as a repeat, as the reply's rules leave it out in a turn never cut (repeatsShown: the reply's last
 * pieces, or one file of it, said again whole); one within the rest's own text is left to those rules. Of a
 * status that ends the turn only its message is left out: how the turn ended is the rest's to tell.
 */

/** A piece of the turn's text: one message's, or one file's of text alone (`file`: its id), which its appended chunks go on with. */
interface Piece {
  text: string;
  readonly file?: string;
}

/** What its user read of the turn before the cut: its messages' texts, then its files' of text alone (where a file came among the messages is not kept: after them, as tasks/get puts it). */
function readBefore(shown: Pick<TurnSoFar, 'passed' | 'shownFiles'>): Piece[] {
  const files = [...(shown.shownFiles ?? [])].flatMap(([file, parts]) =>
    parts && parts.length > 0 && parts.every((part) => part.text !== undefined) ? [{ text: joinText(parts), file }] : [],
  );
  return [...shown.passed.map((text) => ({ text })), ...files];
}

/**
 * The rest's events (`events`, followed live or read from the task) without what says again the turn's text from
 * before the cut (`shownBefore`: what its user read).
 */
export function withoutRestatements(
  events: AsyncIterable<StreamResponse> | Iterable<StreamResponse>,
  shownBefore: Pick<TurnSoFar, 'passed' | 'shownFiles'>,
): AsyncIterableIterator<StreamResponse> {
  return new WithoutRestatements(events, shownBefore);
}

/** A stage (core/stepped-stages.ts): read through with the layers below it. */
class WithoutRestatements extends SteppedStage<StreamResponse, StreamResponse> {
  #pieces: Piece[] = [];
  #cutAt = 0;

  constructor(
    private readonly events: AsyncIterable<StreamResponse> | Iterable<StreamResponse>,
    private readonly shownBefore: Pick<TurnSoFar, 'passed' | 'shownFiles'>,
  ) {
    super();
  }

  protected open(): AsyncIterator<StreamResponse> {
    this.#pieces = readBefore(this.shownBefore);
    this.#cutAt = this.#pieces.length;
    return asyncIteratorOf(this.events);
  }

  protected step(result: IteratorResult<StreamResponse>): Step<StreamResponse> {
    if (result.done) return { items: [], end: true };
    const event = result.value;
    const pieces = this.#pieces;
    const missed = missedAcrossCut(event, pieces, this.#cutAt);
    if (missed) {
      for (const told of missed) noteSaid(told, pieces);
      return { items: missed };
    }
    if (restatesAcrossCut(event, pieces, this.#cutAt)) {
      const kept = withoutRestatement(event);
      return { items: kept ? [kept] : [] };
    }
    noteSaid(event, pieces);
    return { items: [event] };
  }
}

/** The turn's text with what `event` says: a message's text, a file's, or a chunk appended to a file of text (its piece goes on). */
function noteSaid(event: StreamResponse, pieces: Piece[]): void {
  if ('statusUpdate' in event) {
    const message = event.statusUpdate.status.message;
    if (message?.role === 'ROLE_AGENT') pieces.push({ text: joinText(message.parts) });
    return;
  }
  if (!('artifactUpdate' in event)) return;
  const { artifact, append } = event.artifactUpdate;
  if (!textAlone(artifact.parts)) return;
  const file = append === true ? pieces.findLast((piece) => piece.file === artifact.artifactId) : undefined;
  if (file) file.text += joinText(artifact.parts);
  else pieces.push({ text: joinText(artifact.parts), file: artifact.artifactId });
}

/** A restatement left out: a file or a working message whole; of a status that ends the turn, its message alone. */
function withoutRestatement(event: StreamResponse): StreamResponse | undefined {
  if (!('statusUpdate' in event) || isActiveState(event.statusUpdate.status.state)) return undefined;
  const { message: _restated, ...status } = event.statusUpdate.status;
  return { statusUpdate: withFields(event.statusUpdate, { status }) };
}

/**
 * Whether `event` says again the turn's texts so far (`pieces`) from a piece before the cut (one of the first
 * `cutAt`) to their end: iac-code's `assistantFinal`, the message a turn ends with, or a whole artifact of text alone.
 */
function restatesAcrossCut(event: StreamResponse, pieces: readonly Piece[], cutAt: number): boolean {
  const text = restating(event);
  if (text === undefined) return false;
  const at = restatedAmong(
    text,
    pieces.map(({ text: said }) => said),
  );
  return at !== undefined && at < cutAt;
}

/** A closing status whose message says the turn's text again with more its user missed: what they missed (rest-missed-end.ts). */
function missedAcrossCut(event: StreamResponse, pieces: readonly Piece[], cutAt: number): StreamResponse[] | undefined {
  if (!('statusUpdate' in event)) return undefined;
  const text = restating(event);
  return text === undefined ? undefined : missedEnd(event.statusUpdate, text, pieces, cutAt);
}

/** The text an event may restate the turn with, if it is one that may. */
function restating(event: StreamResponse): string | undefined {
  if ('statusUpdate' in event) {
    const { status, metadata } = event.statusUpdate;
    return status.message?.role === 'ROLE_AGENT' && (isAssistantFinal(metadata) || endsWithAnswer(event.statusUpdate))
      ? joinText(status.message.parts)
      : undefined;
  }
  return 'artifactUpdate' in event ? fileText(event.artifactUpdate) : undefined;
}

/** A status that ends the turn with the agent's answer (input-required's question too), not one that explains the state (why it failed). */
const endsWithAnswer = ({ status }: TaskStatusUpdateEvent): boolean => !isActiveState(status.state) && !isExplainedState(status.state);

const textAlone = (parts: TaskArtifactUpdateEvent['artifact']['parts']): boolean =>
  parts.length > 0 && parts.every((part) => part.text !== undefined);

/** The text of a file sent whole that is text alone (a chunk appended to a file says a piece of it). */
function fileText({ artifact, append }: TaskArtifactUpdateEvent): string | undefined {
  return append !== true && textAlone(artifact.parts) ? joinText(artifact.parts) : undefined;
}

/** Whether a file says the turn's texts (`said`) again, from one of them to their end: its answer sent again as an artifact. */
export function restatesFile(update: TaskArtifactUpdateEvent, said: readonly string[]): boolean {
  const text = fileText(update);
  return text !== undefined && restatedAmong(text, said) !== undefined;
}

/**
 * Whether `text` says again the turn's texts (`pieces`, in order) from the start of one of them to their end,
 * white space at either end aside: where that one is, if so.
 */
export function restatedAmong(text: string, pieces: readonly string[]): number | undefined {
  const said = text.trim();
  if (said === '') return undefined;
  // Joined only once the pieces from the end are long enough to say it: a long turn's thousands of tokens are not.
  let length = 0;
  for (let i = pieces.length - 1; i >= 0; i--) {
    length += pieces[i]?.length ?? 0;
    if (length < said.length) continue;
    const tail = pieces.slice(i).join('').trim();
    if (tail === said) return i;
    if (tail.length >= said.length) return undefined;
  }
  return undefined;
}
