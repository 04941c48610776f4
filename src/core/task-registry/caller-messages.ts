import { withFields, type Message, type Task } from '../../model/index.js';
import { withChunksKept } from './chunk-runs.js';

const NOTHING: readonly Message[] = [];

/**
 * The agent's Task with the caller's messages it lacks put back, each where the gateway recorded it.
 *
 * An a2a-js 0.2.5 agent never stores a follow-up (the answer to its input-required question) in its task's
 * history, so its Task reads as the agent asking and answering itself. The gateway recorded every message
 * it passed on; when it takes in the agent's Task over its record (a Task event folded, a GetTask or
 * SendMessage answer), a user message of the record (by messageId) the agent's history does not hold is
 * kept, right after the message the record had before it that the agent also holds, the agent's own
 * messages and order otherwise as the agent gave them (but for the chunks of one of its messages its store kept
 * the first of, chunk-runs.ts). Only the caller's messages: an agent message the
 * agent left out stays out, and one the agent holds under a messageId of its own is not shown twice
 * (Restated). What was recorded is `recorded` then `saidAfter` (a follow-up's question and the follow-up,
 * recordedWithFollowUp), read in place.
 *
 * A user message with nothing the agent holds before it is not put back: an answer cut by historyLength
 * holds the agent's last messages only, and such a message was said before them; an agent that never shows
 * the message that opened its task (iac-code, the demo agent) gets the recorded one first elsewhere, in the
 * record and in the answer alike (first-message.ts: snapshotToStore for an answer, overRecord in fold.ts for a
 * Task event).
 *
 * Every blocking answer and every Task event folded passes here, and an agent that holds every message (a
 * 1.x agent) has nothing put back: that is seen in one walk over both histories, in order, with nothing
 * built, and its own Task is returned. Only a history that is not the record's in order (a message missing,
 * an answer cut) is indexed, once: linear in both histories either way.
 */
export function withCallerMessagesKept(given: Task, recorded: readonly Message[] | undefined, saidAfter = NOTHING): Task {
  // The chunks of the agent's own messages its store folded away are the record's too (chunk-runs.ts).
  const answer = withChunksKept(given, recorded);
  const history = answer.history;
  const said = recorded ?? NOTHING;
  if (said.length + saidAfter.length === 0 || !history?.length) return answer;
  const recordedEnd = inOrderUntil(history, said, 0);
  if (recordedEnd >= 0 && inOrderUntil(history, saidAfter, recordedEnd) >= 0) return answer;
  return keptWhereSaid(answer, history, [said, saidAfter]);
}

/**
 * What the gateway recorded of a task a follow-up answers, after its history, as the task stood when the
 * follow-up was sent: the question it waited on (its status message, moved into the history when the status
 * moves on, fold.ts), then the follow-up. Read from the record before the follow-up is passed on, as a
 * subscription may record the agent's reply to it meanwhile.
 */
export function recordedWithFollowUp(asked: Task | undefined, followUp: Message): readonly Message[] {
  const question = asked?.status.message;
  return question ? [question, followUp] : [followUp];
}

/**
 * Where in `history` a walk finding each of `recorded` in order, from `from` on, ends (just after the last
 * one), or -1 when one is not found there: each search goes on after the message found last, so the walk
 * is linear, a search that fails ending it.
 */
function inOrderUntil(history: readonly Message[], recorded: readonly Message[], from: number): number {
  let next = from;
  for (const message of recorded) {
    while (next < history.length && history[next]!.messageId !== message.messageId) next++;
    if (next === history.length) return -1;
    next++;
  }
  return next;
}

/**
 * The general case: the recorded user messages the agent's history lacks put back after the agent's message the
 * record had before them, unless the agent holds them there under an id of its own (restated, below).
 */
function keptWhereSaid(answer: Task, history: readonly Message[], runs: readonly (readonly Message[])[]): Task {
  const occurrences = new Occurrences(history, runs);
  // Kept messages by the position of the agent's message they follow.
  const keptAfter = new Map<number, Message[]>();
  const kept = new Set<string>();
  let restated: Restated | undefined;
  let anchor = -1;
  // The messages missing since the last one the agent holds: kept once the next it holds (or the end) is found.
  let missing: Message[] = [];
  const keepMissing = (before: number) => {
    if (missing.length === 0) return;
    restated ??= new Restated(history, runs);
    for (const message of missing) {
      if (restated.take(message, anchor, before)) continue;
      const group = keptAfter.get(anchor);
      if (group) group.push(message);
      else keptAfter.set(anchor, [message]);
    }
    missing = [];
  };
  for (const run of runs) {
    for (const message of run) {
      if (occurrences.holds(message.messageId)) {
        const position = occurrences.next(message.messageId);
        if (position === undefined) continue;
        keepMissing(position);
        anchor = position;
        continue;
      }
      // Kept once: a message recorded twice (a retried follow-up) is passed over the second time.
      if (kept.has(message.messageId) || anchor < 0 || message.role !== 'ROLE_USER' || !message.messageId) continue;
      kept.add(message.messageId);
      missing.push(message);
    }
  }
  keepMissing(history.length);
  if (keptAfter.size === 0) return answer;
  const merged: Message[] = [];
  history.forEach((message, index) => {
    merged.push(message);
    const group = keptAfter.get(index);
    if (group) merged.push(...group);
  });
  return withFields(answer, { history: merged });
}

/**
 * Where in the agent's history each recorded message is, by messageId. An agent may reuse an id in every turn
 * (iac-code: `<taskId>-message` for every chunk, `<taskId>-2` for the final text), so an id is matched
 * occurrence by occurrence, in order: from the end when the record holds it more often than the agent (an answer
 * cut by historyLength holds the last ones; the record's earlier ones have none), from the start otherwise (the
 * agent ran on past the record). Matched by their first occurrence, a cut answer's last message stood for the
 * record's first turn, and the caller's follow-up was put after it, as the latest message.
 */
class Occurrences {
  private readonly positions = new Map<string, number[]>();
  /** Per id: how many of its recorded occurrences were walked, less those the agent's history has no place for. */
  private readonly walked = new Map<string, number>();

  constructor(history: readonly Message[], runs: readonly (readonly Message[])[]) {
    history.forEach((message, index) => {
      const same = this.positions.get(message.messageId);
      if (same) same.push(index);
      else this.positions.set(message.messageId, [index]);
    });
    const recorded = new Map<string, number>();
    for (const run of runs) {
      for (const { messageId } of run) if (this.positions.has(messageId)) recorded.set(messageId, (recorded.get(messageId) ?? 0) + 1);
    }
    for (const [messageId, count] of recorded) this.walked.set(messageId, Math.min(0, this.positions.get(messageId)!.length - count));
  }

  holds(messageId: string): boolean {
    return this.positions.has(messageId);
  }

  /** The position of the agent's message the next recorded occurrence of `messageId` is, or undefined when it has none. */
  next(messageId: string): number | undefined {
    const walked = this.walked.get(messageId) ?? 0;
    this.walked.set(messageId, walked + 1);
    return walked < 0 ? undefined : this.positions.get(messageId)?.[walked];
  }
}

/**
 * The agent's user messages whose id the record does not hold, by their text: an agent that stores the
 * caller's message under a messageId of its own holds it, and it is not put back beside it (shown twice). A
 * recorded message is taken as restated by the first such message of the same text the agent holds between
 * the message it was recorded after and the next one the record holds too; each is taken once, and the
 * search only moves on (linear).
 */
class Restated {
  private readonly byText = new Map<string, { positions: number[]; next: number }>();

  constructor(history: readonly Message[], runs: readonly (readonly Message[])[]) {
    const recorded = new Set<string>();
    for (const run of runs) for (const message of run) recorded.add(message.messageId);
    history.forEach((message, index) => {
      const text = textOf(message);
      if (message.role !== 'ROLE_USER' || !text || recorded.has(message.messageId)) return;
      const same = this.byText.get(text);
      if (same) same.positions.push(index);
      else this.byText.set(text, { positions: [index], next: 0 });
    });
  }

  /** Whether the agent holds `message` restated after position `after` and before `before`: taken if so. */
  take(message: Message, after: number, before: number): boolean {
    const same = this.byText.get(textOf(message));
    if (!same) return false;
    while (same.next < same.positions.length && same.positions[same.next]! <= after) same.next++;
    if (same.next === same.positions.length || same.positions[same.next]! >= before) return false;
    same.next++;
    return true;
  }
}

const textOf = (message: Message): string => message.parts.map((part) => part.text ?? '').join('');
