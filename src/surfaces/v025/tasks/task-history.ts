import type { CallContext } from '../../../core/agent-port.js';
import { withHistoryLength } from '../../../model/index.js';
import { conversation, withFields, renamedTask, type GetTaskRequest, type Message, type Task } from '../../../model/index.js';
import type { V025Task } from '../../../protocol/v025/index.js';
import { taskToV025 } from '../../../translate/index.js';
import type { V025FacadeDeps } from '../deps.js';
import { withoutGatewayMetadata } from '../caller-metadata.js';
import { shownStates } from '../reply-options.js';
import { taskReply } from './task-reply.js';

/** A task's messages with its status message last, when its history does not hold it (the current state's words). */
function withStatusMessage(history: readonly Message[], statusMessage: Message | undefined): Message[] {
  return statusMessage && !history.some((message) => message.messageId === statusMessage.messageId) ? [...history, statusMessage] : [...history];
}

/**
 * tasks/get: the task as the core answers it (fresh from the upstream, or the registry), its history every
 * message the agent keeps, streamed pieces too, with the status message of the current state (part of the latest
 * turn). The history is the agent's whole, with the caller's messages it lacks (the opening message iac-code never
 * keeps) and the chunks of a message it kept the first of (an a2a-js 1.x agent's store) put back from the gateway's
 * record (recording.ts, task-registry/chunk-runs.ts): the record itself keeps only the last
 * `tasks.history-limit` messages, fewer than one long iac-code turn (a history message per streamed piece), so it
 * is read only for an answer without history.
 */
export async function taskAsKept(deps: V025FacadeDeps, query: GetTaskRequest, ctx: CallContext): Promise<Task> {
  const answer = await deps.port.getTask(query, ctx);
  const agentHistory = answer.history?.length ? answer.history : undefined;
  return withWholeHistory(answer, agentHistory ?? (await deps.registry.get(answer.id, ctx.principal))?.history ?? []);
}

/** `task` with `history` as its history, the status message last when the history lacks it. */
export function withWholeHistory(task: Task, history: readonly Message[]): Task {
  const whole = withStatusMessage(history, task.status.message);
  const { history: _given, ...rest } = task;
  return whole.length > 0 ? withFields(rest, { history: whole }) : rest;
}

/**
 * tasks/get's 0.2.5 answer: the reply of the task's latest turn as message/send shows it (task-reply.ts: its
 * state, the reply artifact, under `a2a-0.2.5` a failure's reason on the status), and the task's conversation
 * as its history. For a task the caller named itself, it and its messages name the caller's id (the upstream's
 * id stays behind the gateway); its parts carry none of the gateway's own metadata.
 */
export async function facadeTaskV025(deps: V025FacadeDeps, request: GetTaskRequest, ctx: CallContext, clientTaskId?: string): Promise<V025Task> {
  const { historyLength, ...whole } = request;
  return keptTaskV025(deps, await taskAsKept(deps, whole, ctx), ctx, { historyLength, clientTaskId });
}

/** facadeTaskV025 of a task already read whole (taskAsKept), its history cut to `historyLength`. */
export async function keptTaskV025(
  deps: V025FacadeDeps,
  kept: Task,
  ctx: CallContext,
  { historyLength, clientTaskId }: { historyLength?: number | undefined; clientTaskId?: string | undefined },
): Promise<V025Task> {
  // The reply is replayed from every message kept: a turn's streamed pieces tell where its files came (before the
  // words iac-code restates at its end), which the conversation's whole message alone does not.
  const reply = await taskReply(deps, kept, ctx, clientTaskId);
  const task = kept.history ? withFields(kept, { history: conversation(kept.history) }) : kept;
  const { history } = taskToV025(withHistoryLength(clientTaskId ? renamedTask(task, clientTaskId) : task, historyLength), deps.profile);
  const answer = reply ?? taskToV025(withHistoryLength(task, 0), shownStates(deps).profile);
  return withoutGatewayMetadata(history ? withFields(answer, { history }) : answer);
}
