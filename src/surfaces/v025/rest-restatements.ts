import type { StreamResponse, TaskArtifactUpdateEvent } from '../../model/index.js';
import { joinText } from '../../translate/index.js';
import { isAssistantFinal } from '../../upstream/iac-code/events.js';

/**
 * The rest of a cut turn (cut-turns.ts) is a reply of its own, which opens after what its user read before the
 * cut: the reply's repeat rules (reply/rules.ts) compare what comes with that reply alone. What the agent says
 * again of its turn from before the cut would be shown whole: iac-code closes every turn with the text after
 * its last tool call again (its `assistantFinal`: in a turn without a tool, the whole answer), and an agent may
 * send its streamed answer again as an artifact of text (the demo agent's `reply.txt`). So the user would read
 * the answer twice, the second time from its start. Such a restatement of the turn's text, from the start of one
 * of its messages to its end, counted across the cut, is left out here, as a repeat, as it is in a turn never
 * cut; one within the rest's own text is left to the reply's rules.
 */

/** The rest's events (`events`, followed live) without those that say again the turn's text from before the cut (`shownBefore`: the texts its user read). */
export async function* withoutRestatements(events: AsyncIterable<StreamResponse>, shownBefore: readonly string[]): AsyncGenerator<StreamResponse> {
  const said = [...shownBefore];
  for await (const event of events) {
    if (restatesAcrossCut(event, said, shownBefore.length)) continue;
    const message = 'statusUpdate' in event ? event.statusUpdate.status.message : undefined;
    if (message?.role === 'ROLE_AGENT') said.push(joinText(message.parts));
    yield event;
  }
}

/**
 * Whether `event` says again the turn's texts so far (`said`) from a message before the cut (one of the first
 * `cutAt`) to their end: iac-code's `assistantFinal`, or a whole artifact of text alone.
 */
function restatesAcrossCut(event: StreamResponse, said: readonly string[], cutAt: number): boolean {
  const text = restating(event);
  if (text === undefined) return false;
  const at = restatedAmong(text, said);
  return at !== undefined && at < cutAt;
}

/** The text an event may restate the turn with, if it is one that may. */
function restating(event: StreamResponse): string | undefined {
  if ('statusUpdate' in event) {
    const { status, metadata } = event.statusUpdate;
    return status.message?.role === 'ROLE_AGENT' && isAssistantFinal(metadata) ? joinText(status.message.parts) : undefined;
  }
  return 'artifactUpdate' in event ? fileText(event.artifactUpdate) : undefined;
}

/** The text of a file sent whole that is text alone (a chunk appended to a file says a piece of it). */
function fileText({ artifact, append }: TaskArtifactUpdateEvent): string | undefined {
  const textAlone = artifact.parts.length > 0 && artifact.parts.every((part) => part.text !== undefined);
  return append !== true && textAlone ? joinText(artifact.parts) : undefined;
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
