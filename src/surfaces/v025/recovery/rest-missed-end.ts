import { withFields, type StreamResponse, type TaskStatusUpdateEvent } from '../../../model/index.js';
import { denseLength, MIN_RESTATED } from '../reply/rules.js';

/**
 * A cut turn's rest followed live may miss a piece of the turn the agent said: the a2a-js SDKs load the task, then
 * listen, and what the agent says between is lost to the subscription. The agent's closing message that says the
 * turn's text again whole (rest-restatements.ts) then says more than its user read: what they read before the cut
 * and of the rest, from the start of a piece, is a strict prefix of it. Its user is shown what they missed, once, as
 * the text they read goes on (a chunk more of the file they read, else the message's missing end), not the
 * whole text again nor nothing.
 */

/** A piece of the turn's text as its user read it (rest-restatements.ts Piece). */
export interface ReadPiece {
  readonly text: string;
  readonly file?: string;
}

/**
 * The events that show what a closing status (`event`) says past what its user read of the turn (`pieces`, from one
 * of the first `cutAt`, before the cut, to their end), when what they read is a strict prefix of its message;
 * undefined when it is not.
 */
export function missedEnd(event: TaskStatusUpdateEvent, text: string, pieces: readonly ReadPiece[], cutAt: number): StreamResponse[] | undefined {
  const missing = missingAfterRead(text, pieces, cutAt);
  if (missing === undefined) return undefined;
  // `text` is this message's (rest-restatements.ts restating): a status without one restates nothing.
  const { message, ...status } = event.status;
  if (!message) return undefined;
  const last = pieces.at(-1);
  if (last?.file === undefined) {
    return [
      { statusUpdate: withFields(event, { status: withFields(event.status, { message: withFields(message, { parts: [{ text: missing }] }) }) }) },
    ];
  }
  const { taskId, contextId } = event;
  const chunk = { taskId, contextId, artifact: { artifactId: last.file, parts: [{ text: missing }] }, append: true };
  return [{ artifactUpdate: chunk }, { statusUpdate: withFields(event, { status }) }];
}

/**
 * What `text` says past the turn's text read from a piece before the cut to the end, when that text (more than a
 * word or two) is a strict prefix of it, white space at its start aside.
 */
function missingAfterRead(text: string, pieces: readonly ReadPiece[], cutAt: number): string | undefined {
  const said = text.trim();
  let length = 0;
  for (let i = pieces.length - 1; i >= 0; i--) {
    length += pieces[i]!.text.length;
    if (length > text.length) return undefined;
    // Joined only where the piece opens the text: a long turn's many pieces are not joined again and again.
    if (i >= cutAt || !said.startsWith(pieces[i]!.text.trimStart())) continue;
    const read = pieces
      .slice(i)
      .map((piece) => piece.text)
      .join('')
      .trimStart();
    if (read.length < said.length && said.startsWith(read) && denseLength(read) >= MIN_RESTATED) return said.slice(read.length);
  }
  return undefined;
}
