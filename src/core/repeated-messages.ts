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
import type { AgentPort, CallContext, Settling } from './agent-port.js';
import { withScopedFollowedRecord } from './followed-record.js';
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
 * repeat in its own terms before anything reaches the core (surfaces/v025/turn/repeated-turn.ts).
 *
 * The task a message continues is read as the scope check below reads it: once its queued writes are done, with its
 * owner and tenant in the same read (TaskStore.scopedTask). The caller's is handed below with that scope
 * (followed-record.ts), so that a message that runs costs no read of its task more than its scope check's.
 */

export interface RepeatedMessagesDeps {
  registry: Pick<TaskStore, 'scopedTask' | 'latestInContext'>;
  /** A task's queued writes (task-writer.ts), waited for before its read, as task-scope.ts waits. */
  settling: Settling;
  /** The caller's messages are recorded redacted (recording.ts): a repeat is compared as recorded. */
  redaction: Pick<Redaction, 'message'>;
}

/** The refusal of a messageId already used for a message that asked something else. */
export const messageIdReused = (messageId: string): A2AError =>
  A2AError.invalidParams(`messageId '${messageId}' was already used for a different message; a new message needs a new messageId`);

export function answeringRepeatedMessages<P extends AgentPort>(inner: P, deps: RepeatedMessagesDeps) {
  const { registry, redaction, settling } = deps;

  /**
   * The caller's recorded task that may hold the message: the one it continues, with the context that hands it below
   * (`below`), else the context's latest. Never throws: a read that fails finds nothing, and hands nothing.
   */
  async function recordedFor(message: Message, ctx: CallContext): Promise<{ task: Task | undefined; below: CallContext }> {
    const { taskId, contextId } = message;
    if (!taskId) {
      const latest = contextId ? await registry.latestInContext(contextId, ctx.principal).catch(() => undefined) : undefined;
      return { task: latest?.task, below: ctx };
    }
    const scoped = await settling
      .settled(taskId)
      .then(() => registry.scopedTask(taskId))
      .catch(() => undefined);
    const task = scoped?.owner === ctx.principal ? scoped.task : undefined;
    // Handed whatever tenant it is in: task-scope.ts checks the message's tenant against the scope handed with it.
    return { task, below: scoped && task ? withScopedFollowedRecord(ctx, task, scoped) : ctx };
  }

  /**
   * The id of the task whose ended turn `request`'s message repeats (undefined when it is to run), and the context the
   * message runs under below.
   */
  async function repeatOf(request: SendMessageRequest, ctx: CallContext): Promise<{ repeated: string | undefined; below: CallContext }> {
    const { message } = request;
    if (ctx.surface === 'v025' || !message.messageId) return { repeated: undefined, below: ctx };
    const { task, below } = await recordedFor(message, ctx);
    const history = task?.history ?? [];
    const at = history.findLastIndex((said) => said.role === 'ROLE_USER' && said.messageId === message.messageId);
    if (!task || at < 0) return { repeated: undefined, below };
    if (messageDigest(history[at]!) !== messageDigest(redaction.message(message))) throw messageIdReused(message.messageId);
    const latestTurn = history.findLastIndex((said) => said.role === 'ROLE_USER') === at;
    return { repeated: latestTurn && isActiveState(task.status.state) ? undefined : task.id, below };
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
      const { repeated, below } = await repeatOf(request, ctx);
      return repeated ? { task: await taskNow(repeated, request, ctx) } : inner.sendMessage(request, below);
    },
    sendStreamingMessage(request: SendMessageRequest, ctx: CallContext): AsyncIterable<StreamResponse> {
      return deferIterable(async () => {
        const { repeated, below } = await repeatOf(request, ctx);
        return repeated ? once<StreamResponse>({ task: await taskNow(repeated, request, ctx) }) : inner.sendStreamingMessage(request, below);
      });
    },
  });
}

async function* once<T>(item: T): AsyncGenerator<T> {
  yield item;
}
