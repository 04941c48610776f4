import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { JsonObject, Part } from './parts.js';
import { ProtocolId } from './ids.js';

export const Role = z.enum(['ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof Role>;

const NO_PARTS = 'parts must contain at least one element';

export const Message = z.looseObject({
  messageId: z.string().min(1, 'messageId is required'),
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
