import type { CallContext } from '../../../core/agent-port.js';
import { isActiveState, withFields, type Artifact, type StreamResponse, type Task } from '../../../model/index.js';
import type { V025Task } from '../../../protocol/v025/index.js';
import type { V025FacadeDeps } from '../deps.js';
import { createReplyFold, createTurnReply, replyEvents, type ReplyOptions } from '../reply/index.js';
import { withAgentFailureTold } from '../reply/agent-failure.js';
import { replyOptions, wordsIn } from '../reply-options.js';
import { stableId } from '../reply-artifact-id.js';
import { latestTurnAsItBegan, latestTurnMessageOf } from '../turn/latest-turn-message.js';
import { earlierFilesOf, withAddedPartsOnly } from '../turn/files-before-turn.js';
import { turnLanguage } from '../turn/turn-language.js';
import { askedLanguage } from '../caller-metadata.js';
import { withTurnWordsFromJournal } from './task-pipeline-turn.js';
import { workingTurnEvents } from './task-working-turn.js';
import { restCursor, restEvents, type TurnSoFar } from '../recovery/turn-rest.js';
import { startedAfreshToldIn } from '../turn/started-afresh.js';
import { latestTurnStartedAfresh } from '../notes/started-afresh-turns.js';

/**
 * What tasks/get shows of a task: the reply of its latest turn as message/send shows it, read from the task as
 * it stands. A caller that did not wait for its turn (`blocking: false`) reads its answer here, and a Bailian
 * caller reads nothing but the reply: the agent's task as it is (files with their bytes, data parts, the
 * status message) is what message/send never shows it. The task is replayed as the events a streaming agent
 * would have sent, through the same reply reducer and fold as message/send: what the turn said so far while it
 * works, its whole reply once it ended.
 */

/**
 * Ids that stay the same from one read of the task to the next: a caller that polls reads the same reply
 * artifact growing, not a new one per read.
 */
function idsOf(taskId: string): () => string {
  let count = 0;
  return () => stableId(taskId, 'reply', String(count++));
}

/**
 * The facade's own words in the language the task's latest turn told them in: the operator's, else as the turn read
 * it when it began (its message, the conversation's, the task before it), not from the agent's answer since: a
 * caller's "ok" in a new conversation is answered in English, whatever language the agent then answers in.
 */
async function taskWords(deps: V025FacadeDeps, task: Task, principal: string) {
  const { language } = deps.options.bailian;
  if (language !== 'auto') return wordsIn(language);
  const { message, previous } = latestTurnAsItBegan(task);
  // The language the turn was told in, asked of iac-code with it: the message iac-code keeps may be the facade's
  // rewrite of the user's answer (pipeline-answers.ts: a candidate's name, iac-code's words), not what the user said.
  const asked = askedLanguage(message?.metadata);
  if (asked) return wordsIn(asked);
  const remembered = await deps.languages?.of(principal, task.contextId).catch(() => undefined);
  return wordsIn(turnLanguage(message, { previous, remembered }).language);
}

/** The task's latest turn as it opened, as a streaming agent would have opened it. */
const opening = (task: Task): StreamResponse => ({
  task: { id: task.id, contextId: task.contextId ?? task.id, status: { state: 'TASK_STATE_SUBMITTED' } },
});

/**
 * The task's latest turn as events. Once it ended: as the rest of a turn whose caller read none of it is read from
 * its task (turn-rest.ts, as a cut turn's is): its messages (without iac-code's restatement of its last words), its
 * files where the turn put them, the status it ended with. A pipeline turn's words before its latest update are in
 * no task: that rest marks the place, and they are read from iac-code's journal (task-pipeline-turn.ts).
 */
async function endedTurnEvents(
  deps: V025FacadeDeps,
  task: Task,
  earlier: readonly Artifact[] | undefined,
  signal: AbortSignal,
): Promise<StreamResponse[]> {
  const sent = latestTurnMessageOf(task);
  const turn: TurnSoFar = { sent: sent ?? { messageId: '', role: 'ROLE_USER', parts: [] }, passed: [] };
  const rest = restEvents(task, restCursor(task, turn), turn, earlier);
  return [opening(task), ...(await withTurnWordsFromJournal(rest.events, turn, deps.pipelineState, signal))];
}

/**
 * The latest turn's events without what the task held of its files before it (files-before-turn.ts), which its reply
 * never showed as its own: a file it left as it was is not shown, one it appended to shows the parts it added.
 */
async function latestTurnEvents(deps: V025FacadeDeps, task: Task, ctx: CallContext): Promise<StreamResponse[]> {
  // A task without files has nothing to leave out: no read of the store (a Redis round trip) for each poll of it.
  const kept = task.artifacts?.length ? await deps.languages?.filesBeforeTurn.of(ctx.principal, task.id).catch(() => undefined) : undefined;
  const earlier = earlierFilesOf(task, kept);
  const events = isActiveState(task.status.state)
    ? workingTurnEvents(task, earlier?.unchanged)
    : await endedTurnEvents(deps, task, earlier?.unchanged, ctx.signal);
  return withAddedPartsOnly(events, earlier);
}

async function* replayed(events: readonly StreamResponse[]): AsyncGenerator<StreamResponse> {
  yield* events;
}

/**
 * The task's latest turn as the events the reply reducer reads, with the reducer's options: what taskReply folds, and
 * what a message/stream that shows an ended turn again streams (repeated-turn.ts), so both read as tasks/get does.
 */
export async function taskReplyEvents(
  deps: V025FacadeDeps,
  task: Task,
  ctx: CallContext,
  clientTaskId?: string,
): Promise<{ options: ReplyOptions; events: StreamResponse[] }> {
  // The reply artifact keeps the id the turn showed it under (made from the task the caller knows and the turn's message).
  const sentMessageId = latestTurnMessageOf(task)?.messageId;
  const words = await taskWords(deps, task, ctx.principal);
  const facts = withFields({ words }, withFields(clientTaskId ? { taskId: clientTaskId } : {}, sentMessageId ? { sentMessageId } : {}));
  // A turn the agent's own error ended reads as message/send read it; one that went on in a fresh context opens with
  // the words that say the agent started afresh, as its message/send and message/stream opened (started-afresh.ts).
  const told = withAgentFailureTold(task, words);
  const events = await latestTurnEvents(deps, told, ctx);
  const afresh = await latestTurnStartedAfresh(deps.languages?.startedAfreshTurns, ctx.principal, task);
  return {
    options: withFields(replyOptions(deps, facts), { newId: idsOf(task.id) }),
    events: afresh ? startedAfreshToldIn(events, words.startedAfresh) : events,
  };
}

/**
 * The reply of the task's latest turn, folded as message/send folds it (`clientTaskId`: the id its caller knows it
 * by). A task still at work is the answer as it stands, not a turn that broke off. Undefined: the reducer made no task of it.
 */
export async function taskReply(deps: V025FacadeDeps, task: Task, ctx: CallContext, clientTaskId?: string): Promise<V025Task | undefined> {
  const { options, events } = await taskReplyEvents(deps, task, ctx, clientTaskId);
  const reply = createTurnReply(options);
  const fold = createReplyFold();
  for await (const event of replyEvents(replayed(events), reply, { waitsForTurnEnd: false })) fold.add(event);
  const result = fold.result();
  return result?.kind === 'task' ? stampedAsTask(result, task) : undefined;
}

/**
 * The reply with the task's own status timestamp, or none when the task holds none (iac-code stamps neither its
 * permission prompt nor a pipeline's updates; 0.2.5's is optional): the reducer stamps a status that has none with
 * the time it reduced it, which for a read is the moment of the read, so a client that polls an unchanged task
 * and diffs what it reads would see it change on every read.
 */
function stampedAsTask(reply: V025Task, task: Task): V025Task {
  const { timestamp: _readAt, ...status } = reply.status;
  const { timestamp } = task.status;
  return withFields(reply, { status: timestamp === undefined ? status : withFields(status, { timestamp }) });
}
