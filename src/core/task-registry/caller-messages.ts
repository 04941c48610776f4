import { withFields, type Message, type Task } from '../../model/index.js';

/**
 * The agent's Task with the caller's messages it lacks put back, each where the gateway recorded it.
 *
 * An a2a-js 0.2.5 agent never stores a follow-up (the answer to its input-required question) in its task's
 * history, so its Task reads as the agent asking and answering itself. The gateway recorded every message
 * it passed on; when it takes in the agent's Task over its record (a Task event folded, a GetTask or
 * SendMessage answer), a user message of the record (by messageId) the agent's history does not hold is
 * kept, right after the message the record had before it that the agent also holds, the agent's own
 * messages and order otherwise as the agent gave them. Only the caller's messages: an agent message the
 * agent left out stays out. Linear in both histories: a map by messageId, no search per message; an agent
 * that holds every message (a 1.x agent) gets its own Task back, untouched.
 *
 * A user message with nothing the agent holds before it is not put back: an answer cut by historyLength
 * holds the agent's last messages only, and such a message was said before them; an agent that never shows
 * the message that opened its task (iac-code, the demo agent) is answered as it answers, and the record
 * keeps that message first (snapshotToStore, first-message.ts).
 */
export function withCallerMessagesKept(answer: Task, recorded: readonly Message[] | undefined): Task {
  const history = answer.history;
  if (!recorded?.length || !history?.length) return answer;
  const positions = new Map<string, number>();
  history.forEach((message, index) => {
    if (!positions.has(message.messageId)) positions.set(message.messageId, index);
  });
  // Kept messages by the position of the agent's message they follow.
  const keptAfter = new Map<number, Message[]>();
  const kept = new Set<string>();
  let anchor = -1;
  for (const message of recorded) {
    const position = positions.get(message.messageId);
    if (position !== undefined) {
      anchor = position;
      continue;
    }
    if (anchor < 0 || message.role !== 'ROLE_USER' || !message.messageId || kept.has(message.messageId)) continue;
    kept.add(message.messageId);
    const group = keptAfter.get(anchor);
    if (group) group.push(message);
    else keptAfter.set(anchor, [message]);
  }
  if (kept.size === 0) return answer;
  const merged: Message[] = [];
  history.forEach((message, index) => {
    merged.push(message);
    const group = keptAfter.get(index);
    if (group) merged.push(...group);
  });
  return withFields(answer, { history: merged });
}

/**
 * What the gateway recorded of a task a follow-up answers, in order: its history, the question the record
 * holds as its status (moved into the history when the status moves on, fold.ts), then the follow-up.
 */
export function recordedWithFollowUp(recorded: Task | undefined, followUp: Message | undefined): readonly Message[] | undefined {
  if (!followUp) return recorded?.history;
  const question = recorded?.status.message;
  return [...(recorded?.history ?? []), ...(question ? [question] : []), followUp];
}
