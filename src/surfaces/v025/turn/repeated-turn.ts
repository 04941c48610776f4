import type { CallContext } from '../../../core/agent-port.js';
import { isActiveState, withFields, type Message, type Task } from '../../../model/index.js';
import type { RequestLogFields } from '../../shared/env.js';
import { noteLogFields } from '../../shared/log-fields.js';
import type { V025FacadeDeps } from '../deps.js';
import { latestTurnMessageOf } from './latest-turn-message.js';
import { messageDigest } from './repeated-message.js';
import type { SentTurnMessages } from '../notes/sent-turn-messages.js';
import { keptTaskV025, taskAsKept } from '../tasks/task-history.js';
import { taskReplyEvents } from '../tasks/task-reply.js';
import { v025Stream, type V025StreamOptions } from '../stream.js';

/**
 * A message whose messageId is the one that opened the conversation's latest turn, after that turn ended: a client
 * that lost the answer (Bailian retries a call whose connection broke) and sent the same message again. Run again,
 * it would run the turn twice at the agent: in front of iac-code a second deployment. It is answered with that
 * turn's reply as tasks/get shows it instead (send.ts, stream.ts); the agent is not asked.
 *
 * The same id that asks something else is no retry, and runs as the new message it is: A2A has the message's creator
 * make its id unique, but Bailian's contract shows one id (`msg-1`) for every example message and says nothing of
 * how it makes them, so a refusal (the 1.0 surface's -32602) could refuse every turn of a client that reuses one.
 * A turn still at work is left to what handles a retry while it runs (the wait for a caller who just left,
 * continuation.ts; a cut turn's rest, cut-turns.ts; else a turn in progress). The window is the note's
 * (sent-turn-messages.ts): the latest turn of the conversation, for an hour at most.
 */

type Conversation = { principal: string; contextId: string | undefined };

/** The caller's message as its note keeps it: its id, and the digest of what it asks. */
export function sentTurnMessageOf(message: Pick<Message, 'messageId' | 'parts'>) {
  const digest = messageDigest(message);
  return digest === undefined ? { messageId: message.messageId } : { messageId: message.messageId, digest };
}

/** Most messages repeat no turn: one settled answer for them all. */
const NOT_REPEATED: Promise<undefined> = Promise.resolve(undefined);
const ignored = (): undefined => undefined;

/**
 * The ended turn `message` repeats, as the agent keeps its task now (tasks/get's read, task-history.ts), or undefined
 * when the message is to run: another id, a turn that left no task (its message failed before the agent took it),
 * or one still at work, or the same id asking something else. A store or agent that cannot
 * answer reads as no repeat: the message then runs as it did before this check.
 */
export function endedTurnRepeated(
  conversation: Conversation,
  notes: SentTurnMessages,
  deps: V025FacadeDeps,
  ctx: CallContext,
  message: Pick<Message, 'messageId' | 'parts'>,
): Promise<Task | undefined> {
  const { principal, contextId } = conversation;
  // A message that names no context opens a conversation (begun-turn.ts gives it one of its own): no turn of it has ended.
  if (!contextId || !message.messageId) return NOT_REPEATED;
  return notedTurnRepeated({ principal, contextId }, notes, deps, ctx, message);
}

async function notedTurnRepeated(
  { principal, contextId }: { principal: string; contextId: string },
  notes: SentTurnMessages,
  deps: V025FacadeDeps,
  ctx: CallContext,
  message: Pick<Message, 'messageId' | 'parts'>,
): Promise<Task | undefined> {
  const sent = await notes.of(principal, contextId).catch(ignored);
  if (sent?.messageId !== message.messageId) return undefined;
  if (sent.digest !== messageDigest(message)) return undefined;
  const latest = await deps.registry.latestInContext(contextId, principal).catch(ignored);
  if (!latest) return undefined;
  const task = await taskAsKept(deps, { id: latest.task.id }, ctx).catch(ignored);
  // The task's latest turn is not this message's: it never reached a task (a later turn would have noted its own id).
  if (!task || latestTurnMessageOf(task)?.messageId !== message.messageId) return undefined;
  return isActiveState(task.status.state) ? undefined : task;
}

/** Notes the turn's message as its caller sent it, once it left for the agent: a retry of it finds it (best effort). */
export function noteSentTurnMessage(notes: SentTurnMessages, conversation: Conversation, message: Pick<Message, 'messageId' | 'parts'>): void {
  const { principal, contextId } = conversation;
  if (contextId && message.messageId) void notes.note(principal, contextId, sentTurnMessageOf(message)).catch(ignored);
}

/** An ended turn a message repeats, with the id its caller knows its task by. */
export interface RepeatedTurn {
  repeated: Task;
  clientTaskId: string | undefined;
}

/** message/send of a message that repeats an ended turn: that turn's reply as tasks/get reads it (task-history.ts). */
export async function repeatedTurnResult(deps: V025FacadeDeps, turn: RepeatedTurn, ctx: CallContext, logFields: RequestLogFields | undefined) {
  const { repeated, clientTaskId } = turn;
  noteLogFields(logFields, { contextId: repeated.contextId, taskId: clientTaskId ?? repeated.id });
  return keptTaskV025(deps, repeated, ctx, { historyLength: 0, clientTaskId });
}

/** message/stream of a message that repeats an ended turn: the events tasks/get reads that turn's reply from, to its final status. */
export async function repeatedTurnStream(deps: V025FacadeDeps, turn: RepeatedTurn, ctx: CallContext, options: Omit<V025StreamOptions, 'reply'>) {
  const { repeated, clientTaskId } = turn;
  noteLogFields(options.logFields, { contextId: repeated.contextId, taskId: clientTaskId ?? repeated.id });
  const { options: reply, events } = await taskReplyEvents(deps, repeated, ctx, clientTaskId);
  return v025Stream(() => listed(events), withFields(options, { reply }));
}

async function* listed<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
