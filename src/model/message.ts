import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { JsonObject, Part } from './parts.js';
import { ProtocolId } from './ids.js';

export const Role = z.enum(['ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof Role>;

const NO_PARTS = 'parts must contain at least one element';
const NO_MESSAGE_ID = 'messageId is required';

export const Message = z.looseObject({
  // A client's empty id arrives left out (ProtoJSON omits empty strings): told it is required, as an empty one is.
  messageId: z.string({ error: (issue) => (issue.input === undefined ? NO_MESSAGE_ID : undefined) }).min(1, NO_MESSAGE_ID),
  role: Role,
  // A client's empty list arrives left out (ProtoJSON omits empty repeated fields): named as what it was.
  parts: z.array(Part, { error: (issue) => (issue.input === undefined ? NO_PARTS : undefined) }).min(1, NO_PARTS),
  contextId: ProtocolId.optional(),
  taskId: ProtocolId.optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  extensions: z.array(z.string()).optional(),
  metadata: JsonObject.optional(),
});
export type Message = z.infer<typeof Message>;

/** The same message said again: one id and the same parts (a task's status message is also its history's last). */
export const sameMessage = (a: Message | undefined, b: Message | undefined): boolean =>
  a !== undefined && b !== undefined && a.messageId === b.messageId && isDeepStrictEqual(a.parts, b.parts);

/**
 * Whether the status message that gives way is in the task's history already. An a2a-js agent (1.x, and 0.2.5) writes
 * each status message into its history as it sends it, so its Task (a stream's opening snapshot, a GetTask answer)
 * holds its status message there, as the last of the agent's messages (the caller's answer may follow it, folded
 * in since): moved again, the agent's question would read twice, after the caller's answer. iac-code's SDK moves
 * it only when the status moves on, and reuses its ids in every turn (`<taskId>-message` for each chunk,
 * `<taskId>-2` for the final text), so a turn's "Done." is an earlier turn's message to the letter: only the
 * agent's last message in the history counts (an earlier chunk or turn alike is moved), and one of the new status
 * message's id, or one of a run of its id, is always moved.
 */
export function statusMessageInHistory(
  history: readonly Message[] | undefined,
  previous: Message,
  next: Message | undefined,
  limit: number,
): boolean {
  if (!history || previous.messageId === next?.messageId) return false;
  // Of what a write keeps (a batch bounds its history once, at its end): a batch finds what one event at a time would.
  const from = Math.max(0, history.length - limit);
  // The agent's last message, past the caller's that followed it: a few steps, however long the history.
  let last = history.length - 1;
  while (last >= from && history[last]!.role === 'ROLE_USER') last--;
  // One of a run of its id is a chunk (an a2a-js 1.x agent gives each message an id of its own): moved.
  return last >= from && sameMessage(history[last], previous) && (last - 1 < from || history[last - 1]!.messageId !== previous.messageId);
}

/** A message's words, when it is all text (a run of pieces is compared by its words). */
const wordsOf = (message: Message): string | undefined =>
  message.parts.every((part) => part.text !== undefined) ? message.parts.map((part) => part.text).join('') : undefined;

/**
 * A run of agent messages that an agent wrote as streamed pieces and then whole (iac-code's SDK keeps
 * every chunk's status message in the history, then the aggregate): the pieces go, the whole stays.
 */
function withoutChunks(run: Message[]): Message[] {
  const last = run.at(-1);
  if (!last || run.length < 2) return run;
  const whole = wordsOf(last);
  const pieces = run.slice(0, -1).map(wordsOf);
  if (!whole || pieces.some((piece) => piece === undefined) || pieces.join('') !== whole) return run;
  return [last];
}

/** The conversation of a task: every user message and each turn's agent messages, without streamed pieces. */
export function conversation(history: readonly Message[]): Message[] {
  const messages: Message[] = [];
  let run: Message[] = [];
  for (const message of history) {
    if (message.role === 'ROLE_AGENT') {
      run.push(message);
      continue;
    }
    // Item by item: a long turn streams more chunks than a call takes arguments.
    for (const kept of withoutChunks(run)) messages.push(kept);
    messages.push(message);
    run = [];
  }
  for (const kept of withoutChunks(run)) messages.push(kept);
  return messages;
}
