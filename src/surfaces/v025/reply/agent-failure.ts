import { brokenOffMessageId } from '../../../core/read-on.js';
import { A2AError, withFields, type StreamResponse, type Task, type TaskStatus } from '../../../model/index.js';
import { turnRefusedAsBusy } from '../../../upstream/iac-code/busy-context.js';
import { failureReason, isGatewayFailure, type FacadeWords } from './words.js';

/**
 * A turn the agent ended with an error of its own after it said something. Its user reads the agent's words so far,
 * then that the agent failed, in their language, and why, in the agent's words scrubbed (the upstream client and the
 * core's redaction scrubbed them), the same on message/send and message/stream (reply/turn.ts) and on tasks/get
 * (withAgentFailureTold), whichever way the agent said it:
 * - its JSON-RPC error in place of the turn's end (`reported`, model/errors.ts UpstreamFault): a -32603 in its SDK's or
 *   its exception's English words (an a2a-js 1.x agent whose task store failed mid-turn, iac-code's `str(exception)`),
 *   which the gateway records as the task's failure (core/read-on.ts failedBy), read so by tasks/get;
 * - a failed status an a2a-js SDK (0.2.5 and 1.x) makes of an executor that threw: "Agent execution error: " and the
 *   exception's message.
 * And one failure that is no error of the agent's: iac-code's refusal of a message while another turn of its context
 * still runs (upstream/iac-code/busy-context.ts), a new task or a follow-up, which the gateway's turn ordering lets
 * through only where it cannot see that turn (another replica without a shared store, a caller that names the running
 * task, a turn it stopped following). Its user reads what they read when the gateway itself refuses a message during a
 * turn (words.turnInProgress), failed, rather than iac-code's English words: their message was not read, and goes
 * again once that turn ended.
 */

/** How a2a-js fails a turn whose executor threw: these words, then the exception's message. */
const EXECUTOR_THREW = 'Agent execution error: ';

/** Whether `error` is the agent's own error, which failed its turn. */
export const reportedByAgent = (error: unknown): boolean => error instanceof A2AError && error.upstreamFault === 'reported';

/** Why the agent's own error ended its turn, as its user reads it. */
export const agentFailureText = (words: FacadeWords, reason: string): string => words.agentFailed(failureReason(words, reason));

/**
 * The agent's own error a failed status of task `taskId` tells, if it tells one (above). The gateway's record of one
 * (`recorded`) is only read from a Task: a status update of it is a replay of that Task (../task-reply.ts), told already.
 */
function agentErrorOf(taskId: string, status: TaskStatus, recorded: boolean): string | undefined {
  const { message } = status;
  if (status.state !== 'TASK_STATE_FAILED' || !message) return undefined;
  const said = message.parts.map((part) => part.text ?? '').join('');
  if (message.messageId === brokenOffMessageId(taskId)) return recorded && !isGatewayFailure(said) ? said : undefined;
  return said.startsWith(EXECUTOR_THREW) ? said.slice(EXECUTOR_THREW.length) : undefined;
}

/**
 * What the user reads for a failed status of task `taskId`, when it is not the status's own words (above): the agent's
 * error, or (`fresh`: the turn said nothing before it) iac-code's refusal of a busy context.
 */
function toldText(taskId: string, status: TaskStatus, words: FacadeWords, recorded: boolean, fresh: boolean): string | undefined {
  if (turnRefusedAsBusy(status, fresh)) return words.turnInProgress;
  const reason = agentErrorOf(taskId, status, recorded);
  return reason === undefined ? undefined : agentFailureText(words, reason);
}

/** `status` with the agent's own error told as its user reads it (toldText); `status` itself when it tells none. */
function toldStatus(taskId: string, status: TaskStatus, words: FacadeWords, recorded: boolean, fresh: boolean): TaskStatus {
  const text = toldText(taskId, status, words, recorded, fresh);
  if (text === undefined || !status.message) return status;
  return withFields(status, { message: withFields(status.message, { parts: [{ text }] }) });
}

/**
 * Whether `task` holds nothing of its agent's but its status's words: no artifact, no agent message in its history
 * other than that status's. A task of earlier turns, or one whose turn said something, holds more.
 */
function saysOnlyItsStatus(task: Task): boolean {
  if (task.artifacts?.length) return false;
  const told = task.status.message?.messageId;
  return (task.history ?? []).every((said) => said.role === 'ROLE_USER' || said.messageId === told);
}

/**
 * `task` with the agent's own error its failed status tells, told as its user reads it: there and in the history,
 * where its SDK or the record keeps that message too (the reply reads both: ../turn-rest.ts). `fresh`: the turn may be
 * a new task (false when the caller knows it went on with an earlier one); the task itself tells whether it said nothing.
 */
export function withAgentFailureTold(task: Task, words: FacadeWords, fresh = true): Task {
  const status = toldStatus(task.id, task.status, words, true, fresh && saysOnlyItsStatus(task));
  if (status === task.status) return task;
  const told = status.message;
  const history = task.history?.map((said) => (said.messageId === told?.messageId ? told : said));
  return withFields(task, withFields({ status }, history ? { history } : {}));
}

/**
 * An event of the turn with the agent's own error its failed status tells, told as its user reads it. `fresh`: the
 * turn showed nothing yet (a new task or a follow-up), where a busy context's refusal is all its user is answered.
 */
export function withAgentFailureToldIn(event: StreamResponse, words: FacadeWords, fresh: boolean): StreamResponse {
  if ('statusUpdate' in event) {
    const update = event.statusUpdate;
    const status = toldStatus(update.taskId, update.status, words, false, fresh);
    return status === update.status ? event : { statusUpdate: withFields(update, { status }) };
  }
  if (!('task' in event)) return event;
  const task = withAgentFailureTold(event.task, words, fresh);
  return task === event.task ? event : { task };
}
