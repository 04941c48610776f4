import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentPort, CallContext } from '../core/agent-port.js';
import { isActiveState, type StreamResponse, type Task, type TaskState } from '../model/index.js';
import { eventState } from './payload.js';
import type { PushLogger } from './queue/types.js';
import type { PushWatcher } from './watch.js';

/**
 * Following a task the gateway answered while it was still running (a `returnImmediately` turn, or an
 * agent that answers a blocking call early): no caller streams it, so without a follow its end would
 * never pass through the gateway and never be pushed.
 */
export interface TaskFollower {
  /** Follows the answer's task until its turn ends, unless it has ended already or is followed. */
  follow(answer: StreamResponse, ctx: CallContext): void;
  /** Resolves once no follow runs (each ended with its task's turn, or gave up). */
  idle(): Promise<void>;
  /** Ends every follow; resolves once none runs, so what they saw is with the watcher. */
  stop(): Promise<void>;
}

export interface TaskFollowerDeps {
  /** The gateway: its subscriptions are recorded in the registry like a caller's. */
  port: Pick<AgentPort, 'subscribeToTask' | 'getTask'>;
  watcher: Pick<PushWatcher, 'watchStream' | 'observeTask'>;
  /** How long one task is followed at most; 0 follows none. */
  timeoutMs: number;
  logger: PushLogger;
  /** Pauses between attempts (tests shorten them). */
  retry?: { initialDelayMs: number; maxDelayMs: number };
  /** At most this many tasks followed at once (`push-follow-max`). */
  maxFollowed?: number;
}

const DEFAULT_RETRY = { initialDelayMs: 1_000, maxDelayMs: 30_000 };
const DEFAULT_MAX_FOLLOWED = 10_000;

/** The turn is over: its task waits for the caller or is finished. */
const turnEnded = (state: TaskState | undefined): boolean => state !== undefined && !isActiveState(state);

/** Node's timers hold at most this many ms (a longer delay would fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A follow's lifetime: ended by the follower's stop or by its timeout, whichever comes first. */
function followLifetime(stopping: AbortSignal, timeoutMs: number): { signal: AbortSignal; timedOut(): boolean; end(): void } {
  const controller = new AbortController();
  let timedOut = false;
  // Not AbortSignal.any: a signal derived from the long-lived `stopping` one would be kept as long as it.
  const onStop = (): void => controller.abort(stopping.reason);
  stopping.addEventListener('abort', onStop, { once: true });
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort(new DOMException('The push follow timed out', 'TimeoutError'));
    },
    Math.min(timeoutMs, MAX_TIMER_MS),
  );
  timer.unref();
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    end() {
      clearTimeout(timer);
      stopping.removeEventListener('abort', onStop);
    },
  };
}

/**
 * Each follow subscribes to the task through the gateway, so the push watcher sees its events as it
 * sees a caller's stream (and, as there, only the first of two local streams of a task is watched).
 * A subscription can be refused (the turn ended before it: agents refuse a finished task; an agent
 * without streaming) or end early (a dropped connection): then the task is read once, and while it
 * still runs, the follow tries again after a pause that grows, so an agent without streaming is polled.
 */
export function createTaskFollower(deps: TaskFollowerDeps): TaskFollower {
  const { port, watcher, logger } = deps;
  const retry = deps.retry ?? DEFAULT_RETRY;
  const maxFollowed = deps.maxFollowed ?? DEFAULT_MAX_FOLLOWED;
  const stopping = new AbortController();
  const running = new Map<string, Promise<void>>();

  /** One subscription to its end; the state it ended in (undefined: it was refused or broke). */
  async function subscribeOnce(taskId: string, ctx: CallContext): Promise<TaskState | undefined> {
    let last: TaskState | undefined;
    try {
      for await (const event of watcher.watchStream(port.subscribeToTask({ id: taskId }, ctx))) last = eventState(event) ?? last;
      return last;
    } catch (error) {
      if (!ctx.signal.aborted) logger.info({ err: error, taskId }, 'push follow: the subscription ended; reading the task');
      return turnEnded(last) ? last : undefined;
    }
  }

  async function readOnce(taskId: string, ctx: CallContext): Promise<Task | undefined> {
    try {
      const task = await port.getTask({ id: taskId, historyLength: 0 }, ctx);
      watcher.observeTask(task);
      return task;
    } catch (error) {
      if (!ctx.signal.aborted) logger.warn({ err: error, taskId }, 'push follow: the task could not be read');
      return undefined;
    }
  }

  async function run(taskId: string, ctx: CallContext): Promise<void> {
    let delay = retry.initialDelayMs;
    while (!ctx.signal.aborted) {
      if (turnEnded(await subscribeOnce(taskId, ctx))) return;
      if (ctx.signal.aborted) return;
      const task = await readOnce(taskId, ctx);
      if (!task || turnEnded(task.status.state)) return;
      await sleep(delay, undefined, { signal: ctx.signal }).catch(() => undefined);
      delay = Math.min(delay * 2, retry.maxDelayMs);
    }
  }

  return {
    follow(answer, caller) {
      if (deps.timeoutMs <= 0 || stopping.signal.aborted || !('task' in answer)) return;
      const { task } = answer;
      if (turnEnded(task.status.state) || running.has(task.id)) return;
      if (running.size >= maxFollowed) {
        logger.warn({ taskId: task.id, maxFollowed }, 'push follow: push-follow-max tasks are followed already; the end of this turn is not pushed');
        return;
      }
      // The caller's identity, not its lifetime: the follow outlives the call that started it.
      const lifetime = followLifetime(stopping.signal, deps.timeoutMs);
      const ctx: CallContext = { principal: caller.principal, signal: lifetime.signal, ...(caller.surface ? { surface: caller.surface } : {}) };
      const done = run(task.id, ctx)
        .then(() => {
          if (lifetime.timedOut()) {
            logger.warn(
              { taskId: task.id, timeoutMs: deps.timeoutMs },
              'push follow: gave up at push-follow-timeout-ms; the end of this turn is not pushed',
            );
          }
        })
        .catch((error: unknown) => logger.error({ err: error, taskId: task.id }, 'push follow failed'))
        .finally(() => {
          lifetime.end();
          running.delete(task.id);
        });
      running.set(task.id, done);
    },

    async idle() {
      while (running.size > 0) await Promise.all(running.values());
    },

    async stop() {
      stopping.abort();
      await this.idle();
    },
  };
}
