import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentPort, CallContext } from '../core/agent-port.js';
import { tenantField, tenantOf } from '../core/tenants.js';
import { isActiveState, type StreamResponse, type Task, type TaskState, type TaskStatus } from '../model/index.js';
import { isAsFound } from './as-found.js';
import { eventStatus } from './event-id.js';
import type { FollowEntry } from './follow-journal.js';
import type { PushLogger } from './queue/types.js';
import type { PushWatcher } from './watch.js';

/** The turn is over: its task waits for the caller or is finished. */
export const turnEnded = (state: TaskState | undefined): boolean => state !== undefined && !isActiveState(state);

/** Whether `status` ends the followed turn: the status the task was found in (as-found.ts) is the last turn's end, not this one's. */
const endsTurn = (status: TaskStatus | undefined, entry: FollowEntry): boolean =>
  status !== undefined && turnEnded(status.state) && !isAsFound(status, entry.asFound);

export interface TurnReaderDeps {
  /** The gateway: its subscriptions are recorded in the registry like a caller's. */
  port: Pick<AgentPort, 'subscribeToTask' | 'getTask'>;
  watcher: Pick<PushWatcher, 'watchStream' | 'observeTask'>;
  logger: PushLogger;
  /** Pauses between attempts. */
  retry: { initialDelayMs: number; maxDelayMs: number };
}

/**
 * Reads one followed turn until it ends. Each attempt subscribes to the task through the gateway, so the push watcher
 * sees its events as it sees a caller's stream (and, as there, only the first of two local streams of a task is
 * watched), and lets go at the turn's end (a2a-js holds a subscription to a task waiting for input open until the
 * next turn). A subscription can be refused (the turn ended before it: agents refuse a finished task; an agent
 * without streaming), end early (a dropped connection) or end without the turn's end (it began while the agent still
 * showed the task as found, and the gateway answered it with that Task alone): then the task is read once, and while
 * the turn still runs, the follow tries again after a pause that grows, so an agent without streaming is polled.
 * What still shows the task as found is kept from the watcher: it is the last turn's end, pushed then, and the
 * watcher would take it for this turn's.
 */
export function createTurnReader(deps: TurnReaderDeps): (entry: FollowEntry, ctx: CallContext) => Promise<void> {
  const { port, watcher, logger, retry } = deps;

  async function* withoutAsFound(events: AsyncIterable<StreamResponse>, entry: FollowEntry): AsyncGenerator<StreamResponse> {
    for await (const event of events) {
      const status = eventStatus(event);
      if (!status || !isAsFound(status, entry.asFound)) yield event;
    }
  }

  /** One subscription, until the turn's end passed (true) or the subscription ended without it. */
  async function subscribeOnce(entry: FollowEntry, ctx: CallContext): Promise<boolean> {
    const { taskId, tenant, turnMessageId } = entry;
    try {
      const subscribed = port.subscribeToTask({ id: taskId, ...tenantField(tenantOf({ tenant })) }, ctx);
      const events = entry.asFound === undefined ? subscribed : withoutAsFound(subscribed, entry);
      for await (const event of watcher.watchStream(events, undefined, turnMessageId)) if (endsTurn(eventStatus(event), entry)) return true;
    } catch (error) {
      if (!ctx.signal.aborted) logger.info({ err: error, taskId }, 'push follow: the subscription ended; reading the task');
    }
    return false;
  }

  async function readOnce(entry: FollowEntry, ctx: CallContext): Promise<Task | undefined> {
    const { taskId, tenant, turnMessageId } = entry;
    try {
      const task = await port.getTask({ id: taskId, historyLength: 0, ...tenantField(tenantOf({ tenant })) }, ctx);
      if (!isAsFound(task.status, entry.asFound)) watcher.observeTask(task, turnMessageId);
      return task;
    } catch (error) {
      if (!ctx.signal.aborted) logger.warn({ err: error, taskId }, 'push follow: the task could not be read');
      return undefined;
    }
  }

  return async function readTurn(entry, ctx) {
    let delay = retry.initialDelayMs;
    while (!ctx.signal.aborted) {
      if (await subscribeOnce(entry, ctx)) return;
      if (ctx.signal.aborted) return;
      const task = await readOnce(entry, ctx);
      if (!task || endsTurn(task.status, entry)) return;
      await sleep(delay, undefined, { signal: ctx.signal }).catch(() => undefined);
      delay = Math.min(delay * 2, retry.maxDelayMs);
    }
  };
}
