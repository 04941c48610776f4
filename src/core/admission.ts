import type { Logger } from 'pino';
import {
  A2AError,
  ErrorCode,
  eventTaskRef,
  isActiveState,
  isInterruptedState,
  isTerminalState,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  withFields,
} from '../model/index.js';
import type { AgentPort, CallContext, Settling } from './agent-port.js';
import { contextBusyError, type ContextLanes, type Lease } from './context-lanes.js';
import { recordedStateFor } from './dead-holders.js';
import { followedRecordOf, withFollowedRecord } from './followed-record.js';
import { deferIterable, tapIterable } from './iterables.js';
import { readingOn } from './read-on.js';
import { streamTurnNaming } from './turn-naming.js';
import { overlay } from './overlay.js';
import type { TaskInScope, TaskStore } from './task-registry/types.js';
import { tenantField, tenantOf } from './tenants.js';
import { createUnendedTurns, type UnendedTurns } from './unended-turns.js';

/** A message into another caller's context: refused as if the context were not there to continue. */
export function foreignContextError(contextId: string): A2AError {
  return new A2AError(ErrorCode.InvalidParams, `Context ${contextId} is not available; start a new context`, { metadata: { contextId } });
}

/**
 * A turn whose task could not be recorded would not be its caller's: while the registry is known to be out
 * of reach, every turn is refused for now, before any work is done for it (here, and by the facade before it
 * reads the conversation from the registry).
 */
export function refuseTurnsWhileOutOfReach(registry: Pick<TaskStore, 'outOfReach'>): void {
  if (registry.outOfReach?.()) throw A2AError.registryOutOfReach();
}

/**
 * A follow-up the recorded task cannot take, refused before the agent is asked, in the words of a2a-js
 * 1.x's server (agents answer these differently: iac-code -32602, 0.2.5 -32600): a finished task takes no
 * more messages (the registry never reopens one), and a message names one context, its task's.
 */
function refuseUnfitFollowUp(message: Message, task: Task): void {
  if (isTerminalState(task.status.state)) {
    throw A2AError.unsupportedOperation(`Task ${task.id} is in a terminal state (${task.status.state}) and cannot be modified`);
  }
  if (message.contextId !== undefined && task.contextId !== undefined && message.contextId !== task.contextId) {
    throw new A2AError(ErrorCode.InvalidParams, `Task ${task.id} is in context ${task.contextId}, not ${message.contextId}`, {
      metadata: { taskId: task.id, contextId: message.contextId },
    });
  }
}

/** How admission let a message in; the decorators below it record and publish only a turn of its own. */
export interface Entry {
  /** The message answers a paused turn (a permission answer) whose own stream holds the lane and records the turn. */
  ridesAlong: boolean;
  /**
   * A follow-up's task as the registry held it when the message entered, its queued writes done, or once its lane was
   * taken where admission read it then: what the answer's record builds on (recording.ts), read here rather than
   * again below. Read as the caller's (the registry gives a task to its owner only), in the tenant the message names
   * (task-scope.ts checked it above).
   */
  followed?: Task | undefined;
}

/** The port below admission: its message methods are told how the message entered (absent: a turn of its own). */
export interface AdmittedPort extends AgentPort {
  sendMessage(request: SendMessageRequest, ctx: CallContext, entry?: Entry): Promise<SendMessageResponse>;
  sendStreamingMessage(request: SendMessageRequest, ctx: CallContext, entry?: Entry): AsyncIterable<StreamResponse>;
}

/** What tells a message answering a paused turn from a turn of its own. */
export interface EntryDeps {
  registry: Pick<TaskStore, 'get'>;
  lanes: Pick<ContextLanes, 'holderTask'>;
  laneKey(contextId: string): string;
  settling: Settling;
}

export interface AdmissionDeps extends EntryDeps {
  registry: Pick<TaskStore, 'get' | 'claimContext' | 'latestInContext' | 'outOfReach'>;
  lanes: ContextLanes;
  logger?: Logger;
  /** The turns whose stream the agent ended before their end (unended-turns.ts); this process's own by default. */
  unended?: UnendedTurns;
}

/**
 * The context a message goes into (its own, else its task's) and whether it rides along: it answers
 * its task's paused turn (interrupted, iac-code's permission prompts) whose stream still holds the
 * context's lane. A task's follow-up first waits for the task's queued writes, so it sees the state
 * the last turn left: as task-scope.ts read it with its scope, or read here.
 */
export async function messageEntry(message: Message, ctx: CallContext, deps: EntryDeps): Promise<Entry & { contextId?: string }> {
  if (!message.taskId) return { ridesAlong: false, ...(message.contextId ? { contextId: message.contextId } : {}) };
  const task = followedRecordOf(ctx, message.taskId) ?? (await recordedNow(message.taskId, ctx, deps));
  if (task) refuseUnfitFollowUp(message, task);
  const contextId = message.contextId ?? task?.contextId;
  const ridesAlong =
    task !== undefined &&
    contextId !== undefined &&
    isInterruptedState(task.status.state) &&
    (await deps.lanes.holderTask(deps.laneKey(contextId))) === task.id;
  return { ridesAlong, followed: task, ...(contextId ? { contextId } : {}) };
}

/** The task as recorded once its queued writes are done, if the caller's. */
async function recordedNow(taskId: string, ctx: CallContext, deps: EntryDeps): Promise<Task | undefined> {
  await deps.settling.settled(taskId);
  return deps.registry.get(taskId, ctx.principal);
}

/**
 * One turn per context: a message enters only when its context's lane is free (-32602 otherwise),
 * and only into a context of its own caller, under the tenant the context was opened in (-32602 too);
 * the lane is held until the turn's answer is recorded, or its stream ended (the decorators below have
 * recorded the stream's last fold by then, so the next turn and every in-process reader see the
 * finished state). A task's follow-up waits for the task's queued
 * writes first, so it sees the state the last turn left. Task visibility is checked above (task-scope.ts).
 *
 * A turn answered with `returnImmediately` whose rest the upstream reads on (read-on.ts) holds the lane until
 * that read ends. A turn can also go on with its lane free: answered with `returnImmediately` otherwise, or its stream broken
 * off while the agent works on. A message into that context would reach a running turn (iac-code
 * damages it), so when the context's latest task was last seen working, the agent is asked, and the
 * context stays busy while the agent says the turn runs. Its answer is recorded like any GetTask. A turn whose
 * stream the agent ended cleanly before the turn's end may have no run going on at all (unended-turns.ts): the
 * agent is then asked that too, and a task it runs nothing for keeps nobody out of its context.
 */
export function admitting(inner: AdmittedPort, deps: AdmissionDeps): AgentPort {
  const { registry, lanes, laneKey, logger } = deps;
  const unended = deps.unended ?? createUnendedTurns();

  async function admit(request: SendMessageRequest, ctx: CallContext): Promise<Entry & { lease?: Lease; held?: Task }> {
    const { message } = request;
    refuseTurnsWhileOutOfReach(registry);
    const { contextId, ridesAlong, followed } = await messageEntry(message, ctx, deps);
    // A permission answer joins the paused turn whose stream still holds the lane (iac-code's prompts).
    if (ridesAlong || !contextId) return { ridesAlong, followed };
    // A context is its owner's in the tenant it was opened under, as a task is: under another it is not there to
    // continue. One whose tenant is not recorded (opened by a release of before) is its owner's under any tenant.
    // One nobody owns yet is claimed now, before the agent hears of it: the agent keeps the conversation even when
    // the turn ends with nothing recorded (an error answer, a timeout), and another caller naming it would go on there.
    const tenant = tenantOf(request);
    const scope = await registry.claimContext(contextId, { owner: ctx.principal, tenant });
    if (scope.owner !== ctx.principal || (scope.tenant !== undefined && scope.tenant !== tenant)) {
      throw foreignContextError(contextId);
    }
    // A follow-up's own turn runs on its task: nothing may ride along into it until it pauses.
    // A lane whose holder died with it is taken over once the registry records its turn over (dead-holders.ts).
    const lease = await lanes.tryAcquire(laneKey(contextId), undefined, recordedStateFor(registry, ctx));
    if (!lease) throw contextBusyError(contextId);
    // Read once the lane is held: no other turn begins on the context from here on, so what it says stands for this one.
    // A read that fails (the registry out of reach) fails the message, and lets the lane go, as a refusal does.
    const latest = await registry.latestInContext(contextId, ctx.principal).catch(async (error: unknown) => {
      await lease.release();
      throw error;
    });
    if (await runsWithoutLane(latest, ctx)) {
      await lease.release();
      throw contextBusyError(contextId);
    }
    return withFields({ lease, ridesAlong: false }, await followedOnceHeld(followed, latest, ctx));
  }

  /**
   * The followed task as its turn begins (Entry.followed) and, where admission read it once the lane was held, that
   * read (`held`), which a stream of the turn opens with (stream-opening.ts) rather than read it again. In a
   * conversation's next turn the followed task is the context's latest, read just now: as it stands, unless the agent
   * was asked about it (runsWithoutLane), whose answer was recorded since. A followed task the entry last saw working
   * was just asked of the agent too (the question the follow-up answers recorded since): read again, then only.
   */
  async function followedOnceHeld(
    followed: Task | undefined,
    latest: TaskInScope | undefined,
    ctx: CallContext,
  ): Promise<Pick<Entry, 'followed'> & { held?: Task }> {
    if (!followed) return { followed };
    if (latest?.task.id === followed.id && !isActiveState(latest.task.status.state)) return { followed: latest.task, held: latest.task };
    if (!isActiveState(followed.status.state)) return { followed };
    const again = await registry.get(followed.id, ctx.principal).then(
      (task) => ({ task }),
      () => undefined,
    );
    // A read that failed leaves the entry's, and hands nothing below, which reads the task itself.
    if (!again) return { followed };
    return again.task ? { followed: again.task, held: again.task } : { followed: undefined };
  }

  /**
   * Whether the context's latest task, last seen working, is still working by the agent's own account. Its
   * latest under any of the caller's tenants, not only the message's: lanes are per context id, since an
   * agent that ignores tenants (an upstream interface with a tenant of its own, a 0.2.5 or 0.3 agent) keeps
   * one conversation per context id. Asked in the task's recorded tenant, where an agent that keeps tasks
   * per tenant knows it.
   */
  async function runsWithoutLane(latest: TaskInScope | undefined, ctx: CallContext): Promise<boolean> {
    if (!latest || !isActiveState(latest.task.status.state)) return false;
    try {
      const asked = await inner.getTask({ id: latest.task.id, historyLength: 0, ...tenantField(latest.tenant) }, ctx);
      if (!isActiveState(asked.status.state)) return false;
      // The probe is no call of the turn's: its caller's stream is not accepted by it, nothing of it is read on.
      const { onAccepted: _accepted, onMessageSent: _sent, readOn: _readOn, ...probeCtx } = ctx;
      const subscribe = (signal: AbortSignal) =>
        inner.subscribeToTask({ id: latest.task.id, ...tenantField(latest.tenant) }, withFields(probeCtx, { signal }));
      return !(await unended.runsNothing(latest.task.id, subscribe, ctx.signal));
    } catch {
      // The agent cannot say (the task is gone, or it has no GetTask): the message itself will find out.
      return false;
    }
  }

  function noteUnended(answer: SendMessageResponse): void {
    const watch = unended.watch();
    watch.saw(answer);
    watch.ended(true);
  }

  /** Admission runs on the first pull, so a refusal is the stream's first error. */
  function sendStreamingMessage(request: SendMessageRequest, ctx: CallContext): AsyncIterable<StreamResponse> {
    return deferIterable(async () => {
      const { lease: admitted, ridesAlong, followed, held } = await admit(request, ctx);
      let lease = admitted;
      // A message without a context gets one from the agent: its lane is taken when the first event names it.
      let takeLane = !ridesAlong && !lease;
      let nameTurn = lease && streamTurnNaming(lease, deps.settling, request.message.taskId);
      // A turn of its own whose stream the agent ends before the turn's end (unended-turns.ts).
      const watch = ridesAlong ? undefined : unended.watch();
      return tapIterable(inner.sendStreamingMessage(request, withFollowedRecord(ctx, held), { ridesAlong, followed }), {
        item(event) {
          watch?.saw(event);
          const { contextId } = eventTaskRef(event);
          if (!takeLane || !contextId) return nameTurn?.(event);
          // Taken before the event is handed on, so no caller can know the context before its lane is held.
          takeLane = false;
          return lanes
            .tryAcquire(laneKey(contextId))
            .catch((error: unknown) => {
              logger?.warn({ err: error, contextId }, 'context lane could not be taken');
              return undefined;
            })
            .then((taken) => {
              lease = taken;
              nameTurn = taken && streamTurnNaming(taken, deps.settling);
              nameTurn?.(event);
            });
        },
        end(how) {
          watch?.ended(how === 'done');
          return lease?.release();
        },
      });
    });
  }

  return overlay(inner, {
    async sendMessage(request, ctx): Promise<SendMessageResponse> {
      const { lease, ridesAlong, followed } = await admit(request, ctx);
      // A follow-up names its task from the start (a new task's id comes only with the answer): should this process
      // die, the turn is over once the registry records the task finished. Not once it waits for input: nothing is
      // recorded before the answer, so the registry still holds the question this turn answers.
      if (lease && request.message.taskId) lease.runsTask(request.message.taskId, { onlyFinishedEnds: true });
      // A turn read on past its answer (read-on.ts) holds the lane to its end, however it ends: its record says then how it went.
      let released: Promise<void> | undefined;
      const release = (): Promise<void> => (released ??= lease ? lease.release() : Promise.resolve());
      const reading = readingOn(request, ctx, (rest) => tapIterable(rest, { end: release }));
      try {
        const answer = await inner.sendMessage(request, reading.ctx, { ridesAlong, followed });
        // A blocking call answered while its task still works: an a2a-js 1.x executor returned without the turn's end.
        if (!ridesAlong && request.configuration?.returnImmediately !== true && !reading.handed()) noteUnended(answer);
        return answer;
      } finally {
        reading.answered();
        if (!reading.handed()) await release();
      }
    },
    sendStreamingMessage,
  });
}
