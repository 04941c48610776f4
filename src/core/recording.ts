import {
  A2AError,
  eventTaskRef,
  withHistoryLength,
  type GetTaskRequest,
  type ListTasksRequest,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import type { AdmittedPort, Entry } from './admission.js';
import { openingMessage, snapshotToStore, withOpeningMessage } from './first-message.js';
import { headThenRest } from './iterables.js';
import { appended } from './small-lists.js';
import { createLostTaskAnswers } from './lost-task-answers.js';
import { createOpenStreams } from './open-streams.js';
import { createStaleTasks } from './stale-tasks.js';
import { recordedWithFollowUp, withCallerMessagesKept } from './task-registry/caller-messages.js';
import { unlessReopened } from './task-registry/fold.js';
import { overlay } from './overlay.js';
import { createTurnWatch, endedWhenBroken, endsTheTurn, readingOn } from './read-on.js';
import type { Redaction } from './redact.js';
import type { TaskMeta, TaskScope, TaskStore } from './task-registry/types.js';
import type { TaskWriter } from './task-writer.js';
import { inScope, tenantField, tenantOf } from './tenants.js';

const FOREIGN_TASK = "The upstream agent answered with another caller's task";

export interface RecordingDeps {
  registry: Pick<TaskStore, 'get' | 'scopeOf' | 'list' | 'historyLimit'>;
  writer: TaskWriter;
  /** The caller's own messages (a follow-up, a new task's opening message) are stored redacted too. */
  redaction: Redaction;
  /** Whose a task the call records is: the caller's, in the tenant its request names. */
  metaOf(ctx: CallContext, tenant: string): TaskMeta;
  /** How long the agent must keep not knowing a recorded task before it is recorded failed (`tasks.lost-after-ms`). */
  lostAfterMs?: number;
}

/**
 * Every task that passes through recorded in the gateway's registry, without delaying any event but a new task's first:
 * streams are folded and persisted by the task writer (task-writer.ts, which says when it writes),
 * answers are stored as they come. When two streams follow one task (a send's stream and a
 * subscription), only the first records (open-streams.ts). ListTasks is always answered from the
 * registry, also for 1.0 agents: an agent that sees one gateway credential would list every caller's tasks;
 * the agent is only asked about tasks last seen running that nobody watches (stale-tasks.ts). A task is
 * recorded in the tenant its first call named (tenants.ts); what names it later names that tenant
 * (task-scope.ts), so each call below carries the task's own tenant to the agent. A task the agent
 * does not know is answered from the record (lost-task-answers.ts).
 */
export function recording(inner: AgentPort, deps: RecordingDeps): AdmittedPort {
  const { registry, writer, redaction, metaOf } = deps;
  const openStreams = createOpenStreams();
  const staleTasks = createStaleTasks((taskId) => openStreams.has(taskId));

  /**
   * Record a Task answer (SendMessage, GetTask, CancelTask), and say which Task stands: the answer, or the
   * record when it holds the task finished and the answer has it running (`unlessReopened`, the rule every
   * registry write follows: such an answer is not written either). A task the registry does not know is
   * only claimed for the caller when the caller created it (`claimNew`); while a stream of the task
   * is open, the stream is the live authority and an answer could only move the state backwards.
   * An answer with a task of another caller, or of another tenant, is -32006 (ownScope): nothing of it is relayed.
   * The answer stands with the caller's messages the agent left out of its history kept (the record's, and
   * `followUp`, the message a blocking send passed on, right after the question it answered: the record as
   * the follow-up found it, `asked`, caller-messages.ts), and with the task's opening message first, as
   * recorded (first-message.ts). A subscription's opening Task is shown as it stands too, written by its stream (subscribed).
   */
  async function recordAnswer(
    answer: Task,
    ctx: CallContext,
    tenant: string,
    options: { historyTrimmed: boolean; claimNew: boolean; opening?: Message; followUp?: { message: Message; asked: Task | undefined } },
    known?: { scope: TaskScope | undefined },
  ): Promise<Task> {
    // Every call naming a task was scoped to the caller's (task-scope.ts): an answer with another's is the agent's mix-up.
    const scope = known ? known.scope : ownScope(await registry.scopeOf(answer.id), ctx, tenant);
    if (scope === undefined && !options.claimNew) return answer;
    const stored = scope === undefined ? undefined : await registry.get(answer.id, ctx.principal);
    if (stored && !unlessReopened(stored, answer)) return stored;
    const { followUp } = options;
    const before = followUp?.asked ?? stored;
    const task = withCallerMessagesKept(answer, before?.history, followUp && recordedWithFollowUp(before, followUp.message));
    const snapshot = snapshotToStore(task, stored, options, registry.historyLimit);
    if (!openStreams.has(task.id)) await writer.record({ task: snapshot }, metaOf(ctx, tenant), task.id);
    // The whole history as recorded, its opening message too (which iac-code never shows): what ListTasks and
    // push notifications show. A history cut by historyLength is the answer's, cut by its caller.
    return options.historyTrimmed ? task : snapshot;
  }

  /**
   * Whose a task the agent answered with is (`scope`, as recorded), which must be the caller's in the call's tenant,
   * or nobody's yet: an agent that mixed up its tasks must not show one caller another's, nor a tenant another's
   * (-32006, nothing of it relayed).
   */
  function ownScope(scope: TaskScope | undefined, ctx: CallContext, tenant: string): TaskScope | undefined {
    if (scope !== undefined && !inScope(scope, ctx.principal, tenant)) throw A2AError.invalidAgentResponse(FOREIGN_TASK);
    return scope;
  }

  /**
   * A stream passed through, each event folded into its task the moment it arrives. A follow-up's message joins
   * its task's history at the stream's first event of the task (the agent took it), before that event, as the
   * SDK's task manager does; also when another stream of the task leads (open-streams.ts): iac-code keeps the
   * stream that asked for a permission open, and the answer's own stream only joins it (docs/iac-code.md).
   * A new task's message (`said.opening`) is recorded first in the Task the stream opens with when that Task holds no
   * message of the caller's, as a blocking answer's is (recordAnswer): a 0.2.5 agent's stream that opens with an
   * update opens with a Task of the ids alone (translate/task-stream.ts openingTaskOf), the only record of a task
   * the agent failed before opening it (a2a-js 0.2.5 makes one up and keeps none), and GetTask, answered from the
   * record, lost the caller's message. A Task that holds one (under an id of the agent's) is recorded as it is.
   * The first event of a task the registry did not know waits for its write, made at once (task-writer.ts
   * foldWritten; the one event that waits on the registry): the caller learns the task's id from it and may name
   * it on another replica at once, which reads the shared registry and would not find a task written a round trip later.
   */
  function recorded(
    source: AsyncIterable<StreamResponse>,
    ctx: CallContext,
    tenant: string,
    said: { followUp?: Message | undefined; opening?: Message | undefined; turnEndsOnAgentError?: boolean; scoped?: string | undefined } = {},
  ): AsyncIterable<StreamResponse> {
    const meta = metaOf(ctx, tenant);
    // A turn's own stream the agent ends with its error before the turn's end: the turn is recorded failed (read-on.ts endsTheTurn).
    const turn = said.turnEndsOnAgentError ? createTurnWatch() : undefined;
    const { followUp } = said;
    let opening = said.opening;
    let unrecorded: string[] | undefined;
    const firstOfUnrecorded = (taskId: string): boolean => {
      if (!unrecorded?.includes(taskId)) return false;
      unrecorded = unrecorded.length === 1 ? undefined : unrecorded.filter((id) => id !== taskId);
      return true;
    };
    const opened = (event: StreamResponse): StreamResponse => {
      const first = opening;
      opening = undefined;
      if (!first || !('task' in event) || event.task.history?.some((message) => message.role === 'ROLE_USER')) return event;
      return { task: withOpeningMessage(event.task, redaction.message(first)) };
    };
    return openStreams.follow(
      source,
      (event, taskId) => {
        turn?.saw(event);
        return firstOfUnrecorded(taskId) ? writer.foldWritten(opened(event), meta, taskId) : writer.fold(opened(event), meta, taskId);
      },
      // Ended, failed or aborted: the last fold is written, and waited for.
      (led, _unfollowed, error) => {
        const failed = turn && endsTheTurn(error, ctx.signal) ? turn.failedBy(error) : undefined;
        const failedTask = failed && eventTaskRef(failed).taskId;
        if (failed && failedTask && led.includes(failedTask)) writer.fold(failed, meta, failedTask);
        // Nearly every stream leads one task: its end is waited for without Promise.all's array and promise.
        return led.length === 1 ? writer.end(led[0]!) : Promise.all(led.map((taskId) => writer.end(taskId)));
      },
      (event, taskId, leads) => {
        // A Task this stream records holds the message already (the agent stores it before it answers).
        if (followUp?.taskId !== taskId || (leads && 'task' in event)) return;
        writer.fold({ message: redaction.message(followUp) }, meta, taskId);
      },
      // Each task the stream names checked the first time (ownScope); `unrecorded` hears of each the registry does
      // not know. `said.scoped`, read as the caller's in the call's tenant already (Entry.followed), is not read again.
      (taskId) => {
        if (taskId === said.scoped) return;
        return registry.scopeOf(taskId).then((scope) => {
          if (ownScope(scope, ctx, tenant) === undefined) unrecorded = appended(unrecorded, taskId);
        });
      },
    );
  }

  /**
   * A subscription passed through and recorded (recorded), the Task it opens with shown as GetTask answers it
   * (recordAnswer): with the caller's messages the agent left out kept, the task's opening message first. iac-code
   * opens a subscription with its stored Task, which never holds that message, and a caller who resubscribed read
   * its task without it, where GetTask showed it. Only what is shown: this stream follows the task, so recordAnswer
   * writes nothing, and the record gets the Task as the agent sent it, folded (fold.ts overRecord keeps the same).
   * A task not recorded as the caller's is shown as the agent sent it. Only the first event is looked at.
   */
  function subscribed(source: AsyncIterable<StreamResponse>, ctx: CallContext, tenant: string): AsyncIterable<StreamResponse> {
    const events = recorded(source, ctx, tenant)[Symbol.asyncIterator]();
    const shown = async (first: IteratorResult<StreamResponse>): Promise<IteratorResult<StreamResponse>> => {
      if (first.done || !('task' in first.value)) return first;
      try {
        return { done: false, value: { task: await recordAnswer(first.value.task, ctx, tenant, { historyTrimmed: false, claimNew: false }) } };
      } catch (error) {
        await Promise.resolve(events.return?.()).catch(() => undefined);
        throw error;
      }
    };
    return headThenRest(events.next().then(shown), events, () => undefined);
  }

  const lost = createLostTaskAnswers({
    inner,
    registry,
    writer,
    metaOf,
    streamed: (taskId) => openStreams.has(taskId),
    subscribed,
    recordAnswer,
    ...(deps.lostAfterMs === undefined ? {} : { lostAfterMs: deps.lostAfterMs }),
  });

  async function getTask(request: GetTaskRequest, ctx: CallContext): Promise<Task> {
    let task: Task;
    try {
      task = await inner.getTask(request, ctx);
    } catch (error) {
      return withHistoryLength(await lost.keptWhenLost(error, request, ctx), request.historyLength);
    }
    lost.found(task.id);
    // A task the record holds finished is answered so, though the agent says it runs: the gateway's own reading
    // of the turn finished it (a 0.2.5 answer given as a Message, task-stream.ts), or the agent lost it and came back.
    const standing = await recordAnswer(task, ctx, tenantOf(request), { historyTrimmed: request.historyLength !== undefined, claimNew: false });
    return standing === task ? task : withHistoryLength(standing, request.historyLength);
  }

  /** A SendMessage answer recorded (recordAnswer), and the answer as it then stands. */
  async function recordedAnswer(
    request: SendMessageRequest,
    response: SendMessageResponse,
    ctx: CallContext,
    call: { tenant: string; followed: string | undefined; asking: Promise<Task | undefined> | undefined; entry: Entry | undefined },
  ): Promise<SendMessageResponse> {
    const { tenant, followed, asking, entry } = call;
    const { taskId } = eventTaskRef(response);
    if (!taskId || entry?.ridesAlong) return response;
    if ('task' in response) {
      const known = { scope: ownScope(await registry.scopeOf(response.task.id), ctx, tenant) };
      const historyLength = request.configuration?.historyLength;
      const said = redaction.message(openingMessage(request.message, response.task));
      // An agent that answered with another task than the one followed up: its record is not this one's.
      const asked = followed === response.task.id ? await asking : undefined;
      const [opening, followUp] = followed ? [undefined, { message: said, asked }] : [said, undefined];
      const options = { historyTrimmed: historyLength !== undefined, claimNew: true, opening, followUp };
      const standing = await recordAnswer(response.task, ctx, tenant, options, known);
      // The answer with the caller's messages the agent left out kept; a finished record that overrules it is not relayed here.
      const overruled = unlessReopened(standing, response.task) === undefined;
      if (standing !== response.task && !overruled) return { task: withHistoryLength(standing, historyLength) };
    } else {
      await writer.record(response, metaOf(ctx, tenant), taskId);
    }
    return response;
  }

  return overlay(inner, {
    async sendMessage(request, ctx, entry?: Entry): Promise<SendMessageResponse> {
      // The record as a follow-up finds it, read before the agent hears it: while the turn runs, a subscription to
      // the task may record the agent's reply, and the follow-up goes after the question it answers, not after that.
      // Admission read it already (Entry.followed); read here only when nothing above did.
      const followed = request.message.taskId && !entry?.ridesAlong ? request.message.taskId : undefined;
      const asking = followed ? (entry ? Promise.resolve(entry.followed) : registry.get(followed, ctx.principal).catch(() => undefined)) : undefined;
      // The rest of a turn read on past its answer (read-on.ts) is folded as its stream would be, once the answer
      // is recorded: a Message ending it ends the task COMPLETED (task-stream.ts), a stream broken off fails it.
      const tenant = tenantOf(request);
      const reading = readingOn(request, ctx, (rest) => (entry?.ridesAlong ? rest : recorded(endedWhenBroken(rest), ctx, tenant)));
      try {
        return await recordedAnswer(request, await inner.sendMessage(request, reading.ctx), ctx, { tenant, followed, asking, entry });
      } finally {
        reading.answered();
      }
    },

    sendStreamingMessage(request, ctx, entry?: Entry) {
      // A permission answer riding along on its paused turn (admission.ts) too: the turn's own stream records the
      // turn, but the answer is only in this one. The followed task admission read is the caller's (Entry.followed).
      const { message } = request;
      const said = message.taskId
        ? { followUp: message, turnEndsOnAgentError: true, scoped: entry?.followed?.id }
        : { opening: message, turnEndsOnAgentError: true };
      return recorded(inner.sendStreamingMessage(request, ctx), ctx, tenantOf(request), said);
    },

    subscribeToTask: lost.subscribeToTask,

    getTask,

    cancelTask: lost.cancelTask,

    async listTasks(request, ctx) {
      // What this process has folded but not yet written is listed too.
      await writer.settledAll();
      const list = (listed: ListTasksRequest) => registry.list(listed, ctx.principal);
      // The list holds the request's tenant's tasks only: each is asked about in that tenant, its own.
      const tenant = tenantField(tenantOf(request));
      const ask = (task: Task) => getTask({ id: task.id, historyLength: 0, ...tenant }, ctx);
      return staleTasks.listFresh(request, list, ask);
    },
  });
}
