import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { countBound } from '../lru-count-bound.js';
import { tapIterable } from '../core/iterables.js';
import type { Settling } from '../core/agent-port.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import type { MappingProfile } from '../mappings/index.js';
import {
  eventTaskRef,
  isTerminalState,
  renamedTask,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type TaskState,
} from '../model/index.js';
import type { PushConfigStore, StoredConfig } from './config-store/types.js';
import {
  CONTENT_TYPE,
  EVENT_ID_HEADER,
  eventState,
  isNotifiedState,
  storedPayloadVersion,
  v025Payload,
  v1Payload,
  withPayloadVersion,
  type PayloadVersion,
} from './payload.js';
import { instanceEventId, stableEventId } from './event-id.js';
import type { NotifiedEvents } from './notified-events.js';
import { newPushJob, type PushLogger, type PushQueue } from './queue/types.js';

/** A config sent along with SendMessage: stored once the task id is known. */
export interface InlineConfig {
  owner: string;
  version: PayloadVersion;
  config: TaskPushNotificationConfig;
}

export interface PushWatcherDeps {
  store: PushConfigStore;
  queue: Pick<PushQueue, 'enqueue'>;
  registry: TaskRegistry;
  profile: MappingProfile;
  /** `push-events`. */
  events: 'terminal' | 'all';
  logger: PushLogger;
  /** Stable event ids already queued per config (by any replica): such a notification is not queued again. */
  notified: NotifiedEvents;
  /** The gateway's `settled` (it writes the task's fold first): a 0.2.5 payload is the registry snapshot after the event was applied. */
  settled: Settling['settled'];
  /** The id a 0.2.5 caller chose for an upstream task, if it chose one: its payloads name the task by it. */
  clientIdOf?: (upstreamId: string, owner: string) => Promise<string | undefined>;
}

export interface PushWatcher {
  /** Passes a stream through unchanged, turning its events into push jobs on the side. */
  watchStream(source: AsyncIterable<StreamResponse>, inline?: InlineConfig): AsyncIterable<StreamResponse>;
  /** A blocking answer (SendMessage, CancelTask); resolves once its inline config is stored. */
  observeAnswer(answer: StreamResponse, inline?: InlineConfig): Promise<void>;
  /** A snapshot of a task read after some of its events passed by (a follow's GetTask): notified only if its state moved on. */
  observeTask(task: Task): void;
  /** Resolves once every accepted event is queued. */
  drain(): Promise<void>;
}

interface TaskTrack {
  /** Last state seen, so `terminal` notifies once per change, not once per chunk. */
  state?: TaskState;
  /** Events accepted for the task by this watcher: the tail of their fallback event ids. */
  seq: number;
}

const MAX_TRACKED_TASKS = 50_000;

/** An accepted event's id; `stable` when every replica (and a restarted process) derives the same one. */
interface AcceptedEvent {
  eventId: string;
  stable: boolean;
}

/** What one receiver is sent for one event. */
interface Notification {
  payload: string;
  /** `A2A-Event-Id`: the same on every retry. */
  eventId: string;
}

/**
 * Watches the events that pass through the decorated port. Each accepted event becomes a step on
 * its task's promise chain (inline config first, then events in order), so the stream never waits
 * for a store read or a queue write, yet nothing is reordered or dropped; `drain` waits for them.
 * While several streams carry one task (a SubscribeToTask beside the SendStreamingMessage), only
 * the first one is watched, like the gateway records only the first.
 */
export function createPushWatcher(deps: PushWatcherDeps): PushWatcher {
  const { store, registry, logger } = deps;
  const tails = new Map<string, Promise<void>>();
  const tracks = new LRUCache<string, TaskTrack>(countBound(MAX_TRACKED_TASKS));
  const openStreams = new Map<string, symbol[]>();
  /** Fallback event ids stay unique across restarts and replicas without coordination. */
  const instance = randomBytes(6).toString('hex');

  function chain(taskId: string, step: () => Promise<void>, failure: string): Promise<void> {
    const previous = tails.get(taskId) ?? Promise.resolve();
    const next = previous.then(step).catch((error: unknown) => logger.error({ err: error, taskId }, failure));
    tails.set(taskId, next);
    void next.then(() => {
      if (tails.get(taskId) === next) tails.delete(taskId);
    });
    return next;
  }

  function storeInline(taskId: string, inline: InlineConfig): Promise<void> {
    return chain(
      taskId,
      async () => {
        await store.create(inline.owner, taskId, withPayloadVersion(inline.config, inline.version));
      },
      'A2A inline push notification config could not be stored',
    );
  }

  /** Decides synchronously, in event order, whether an event is notified; returns its event id. */
  function accept(event: StreamResponse, taskId: string, wholeTurn: boolean): AcceptedEvent | undefined {
    // Messages are not task events: A2A pushes Task, status and artifact updates only.
    if ('message' in event) return undefined;
    const track = tracks.get(taskId) ?? { seq: 0 };
    // A blocking answer stands for a whole turn whose working states were never seen here: the state it
    // reports is a change even when the previous turn ended in the same one (iac-code: input-required).
    if (wholeTurn && track.state !== undefined && !isTerminalState(track.state)) track.state = undefined;
    const state = eventState(event);
    let notify = deps.events === 'all';
    // A terminal state is final: a status arriving after it is stale (a stream still relaying
    // chunks sent before the CancelTask answer), and must not make the terminal state "change" again.
    if (state !== undefined && !(track.state !== undefined && isTerminalState(track.state))) {
      notify ||= state !== track.state && isNotifiedState(state);
      track.state = state;
    }
    tracks.set(taskId, track);
    if (!notify) return undefined;
    track.seq += 1;
    const stable = stableEventId(taskId, event);
    return stable ? { eventId: stable, stable: true } : { eventId: instanceEventId(taskId, instance, track.seq), stable: false };
  }

  /**
   * Whether a config still has to be sent an event: a stable id is claimed first, and one another
   * replica (or this process, or the process before a restart) claimed already is skipped. A claim
   * that cannot be made (Redis out of reach) queues the job anyway: a duplicate the receiver can
   * recognize by its id beats a lost notification.
   */
  async function firstClaim(entry: StoredConfig, accepted: AcceptedEvent): Promise<boolean> {
    if (!accepted.stable) return true;
    try {
      if (await deps.notified.claim(entry, accepted.eventId)) return true;
      logger.debug?.({ taskId: entry.taskId, configId: entry.id, eventId: accepted.eventId }, 'A2A push notification already queued; skipped');
      return false;
    } catch (error) {
      logger.warn(
        { err: error, taskId: entry.taskId, configId: entry.id },
        'A2A push notification could not be checked for a duplicate; queued anyway',
      );
      return true;
    }
  }

  /**
   * A 0.2.5 receiver's notification: the whole Task, and the event id, both naming the task by the id
   * its caller chose when it chose one (the upstream's id stays behind the gateway).
   */
  async function v025Notification(taskId: string, owner: string, event: StreamResponse, eventId: string): Promise<Notification | undefined> {
    await deps.settled(taskId);
    const task = (await registry.get(taskId, owner)) ?? ('task' in event ? event.task : undefined);
    if (!task) return undefined;
    const clientId = await deps.clientIdOf?.(taskId, owner);
    if (!clientId) return { payload: v025Payload(task, deps.profile), eventId };
    return { payload: v025Payload(renamedTask(task, clientId), deps.profile), eventId: `${clientId}${eventId.slice(taskId.length)}` };
  }

  async function enqueueFor(entry: StoredConfig, eventId: string, payload: string, version: PayloadVersion): Promise<void> {
    const job = newPushJob({
      eventId,
      taskId: entry.taskId,
      configId: entry.id,
      owner: entry.owner,
      url: entry.config.url,
      payload,
      contentType: CONTENT_TYPE[version],
      headers: { [EVENT_ID_HEADER]: eventId },
    });
    await deps.queue.enqueue(job);
  }

  async function notify(event: StreamResponse, taskId: string, accepted: AcceptedEvent): Promise<void> {
    const { eventId } = accepted;
    const configs = await store.forTask(taskId);
    const v025ByOwner = new Map<string, Promise<Notification | undefined>>();
    for (const entry of configs) {
      const version = storedPayloadVersion(entry.config);
      let notification: Notification | undefined;
      let claimed = false;
      try {
        if (version === '1.0') {
          notification = { payload: v1Payload(event), eventId };
        } else {
          if (!v025ByOwner.has(entry.owner)) v025ByOwner.set(entry.owner, v025Notification(taskId, entry.owner, event, eventId));
          notification = await v025ByOwner.get(entry.owner);
        }
        if (notification === undefined) {
          logger.warn({ taskId, configId: entry.id }, 'A2A push notification skipped: the task is not in the registry');
          continue;
        }
        // Claimed last, just before queuing: a claim stands for a job that is queued.
        if (!(await firstClaim(entry, accepted))) continue;
        claimed = accepted.stable;
        await enqueueFor(entry, notification.eventId, notification.payload, version);
      } catch (error) {
        // One config's failure must not cost the others their notification.
        logger.error({ err: error, taskId, configId: entry.id, eventId }, 'A2A push notification could not be queued');
        // Not queued: another replica that sees the same change (or a retry here) must still be free to queue it.
        if (claimed) await deps.notified.release(entry, eventId).catch(() => undefined);
      }
    }
  }

  function observe(event: StreamResponse, taskId: string, wholeTurn = false): void {
    const accepted = accept(event, taskId, wholeTurn);
    if (accepted) void chain(taskId, () => notify(event, taskId, accepted), 'A2A push notification could not be queued');
  }

  function watchStream(source: AsyncIterable<StreamResponse>, inline?: InlineConfig): AsyncIterable<StreamResponse> {
    const self = Symbol('push-watch');
    const joined = new Set<string>();
    let pendingInline = inline;
    return tapIterable(source, {
      item(event) {
        const { taskId } = eventTaskRef(event);
        if (!taskId) return;
        if (pendingInline) {
          void storeInline(taskId, pendingInline);
          pendingInline = undefined;
        }
        if (!joined.has(taskId)) {
          joined.add(taskId);
          const streams = openStreams.get(taskId);
          if (streams) streams.push(self);
          else openStreams.set(taskId, [self]);
        }
        if (openStreams.get(taskId)?.[0] === self) observe(event, taskId);
      },
      end() {
        for (const taskId of joined) {
          const rest = (openStreams.get(taskId) ?? []).filter((entry) => entry !== self);
          if (rest.length > 0) openStreams.set(taskId, rest);
          else openStreams.delete(taskId);
        }
      },
    });
  }

  return {
    watchStream,

    async observeAnswer(answer, inline) {
      const { taskId } = eventTaskRef(answer);
      if (!taskId) {
        if (inline) logger.info({}, 'inline push notification config ignored: the answer names no task');
        return;
      }
      const stored = inline ? storeInline(taskId, inline) : undefined;
      observe(answer, taskId, true);
      await stored;
    },

    observeTask: (task) => observe({ task }, task.id),

    async drain() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
    },
  };
}
