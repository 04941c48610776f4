import {
  A2AError,
  isActiveState,
  withFields,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import { deferIterable } from './iterables.js';
import { messageDigest } from './message-digest.js';
import { overlay } from './overlay.js';
import type { Redaction } from './redact.js';
import type { TaskStore } from './task-registry/types.js';

/**
 * A message the gateway already ran a turn for, sent again: the same messageId, in the same task or context, by the
 * same caller. A client whose answer was lost (a connection that broke as the answer came) retries the call as it
 * was, and run again the turn would run twice at the agent: in front of an agent that deploys, a second deployment.
 * Once that turn ended, the message is not passed on: SendMessage answers the task as it stands (as GetTask reads
 * it), SendStreamingMessage that Task, then its end. A turn still at work is left to the layers below (a message
 * into a running turn is refused as a turn in progress, admission.ts).
 *
 * The same id that asks something else (messageDigest) is no retry: A2A has a message's creator make its id unique,
 * so the caller used one id for two messages, and is told so (-32602) rather than either being guessed at.
 *
 * Known from the gateway's record of the task (task-registry): the caller's messages it recorded, on every replica
 * with `store: redis`. So the window is the record's: the task that names the message (its `taskId`) or the
 * context's latest task (its `contextId`), while the registry keeps it (`tasks.idle-ttl-ms`, `tasks.max-tasks`), and
 * the message among its last `tasks.history-limit` messages. A message that names neither opens a conversation the
 * gateway cannot find again, and runs. The 0.2.5 facade is not served here: it sends the agent other words than
 * its caller's at times (a pipeline choice by its number), so it keeps its caller's own message and answers a
 * repeat in its own terms before anything reaches the core (surfaces/v025/repeated-turn.ts).
 */

export interface RepeatedMessagesDeps {
  registry: Pick<TaskStore, 'get' | 'latestInContext'>;
  /** The caller's messages are recorded redacted (recording.ts): a repeat is compared as recorded. */
  redaction: Pick<Redaction, 'message'>;
}

/** The refusal of a messageId already used for a message that asked something else. */
export const messageIdReused = (messageId: string): A2AError =>
  A2AError.invalidParams(`messageId '${messageId}' was already used for a different message; a new message needs a new messageId`);

export function answeringRepeatedMessages<P extends AgentPort>(inner: P, deps: RepeatedMessagesDeps) {
  const { registry, redaction } = deps;

  /** The recorded task that holds the message, or undefined (never throws but for the reused id). */
  async function recordedWith(message: Message, owner: string): Promise<{ task: Task; at: number } | undefined> {
    const { taskId, contextId } = message;
    const task = taskId
      ? await registry.get(taskId, owner).catch(() => undefined)
      : contextId
        ? (await registry.latestInContext(contextId, owner).catch(() => undefined))?.task
        : undefined;
    const history = task?.history ?? [];
    const at = history.findLastIndex((said) => said.role === 'ROLE_USER' && said.messageId === message.messageId);
    return task && at >= 0 ? { task, at } : undefined;
  }

  /** The id of the task whose ended turn `request`'s message repeats, or undefined when it is to run. */
  async function repeatedTaskId(request: SendMessageRequest, ctx: CallContext): Promise<string | undefined> {
    const { message } = request;
    if (ctx.surface === 'v025' || !message.messageId) return undefined;
    const found = await recordedWith(message, ctx.principal);
    if (!found) return undefined;
    const { task, at } = found;
    if (messageDigest(task.history![at]!) !== messageDigest(redaction.message(message))) throw messageIdReused(message.messageId);
    const latestTurn = task.history!.findLastIndex((said) => said.role === 'ROLE_USER') === at;
    return latestTurn && isActiveState(task.status.state) ? undefined : task.id;
  }

  /** The task as it stands, read as GetTask reads it, in the tenant the message names. */
  async function taskNow(taskId: string, request: SendMessageRequest, ctx: CallContext): Promise<Task> {
    const historyLength = request.configuration?.historyLength;
    const query = withFields(
      { id: taskId },
      withFields(request.tenant ? { tenant: request.tenant } : {}, historyLength === undefined ? {} : { historyLength }),
    );
    return inner.getTask(query, ctx);
  }

  return overlay(inner, {
    async sendMessage(request: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
      const repeated = await repeatedTaskId(request, ctx);
      return repeated ? { task: await taskNow(repeated, request, ctx) } : inner.sendMessage(request, ctx);
    },
    sendStreamingMessage(request: SendMessageRequest, ctx: CallContext): AsyncIterable<StreamResponse> {
      return deferIterable(async () => {
        const repeated = await repeatedTaskId(request, ctx);
        return repeated ? once<StreamResponse>({ task: await taskNow(repeated, request, ctx) }) : inner.sendStreamingMessage(request, ctx);
      });
    },
  });
}

async function* once<T>(item: T): AsyncGenerator<T> {
  yield item;
}
