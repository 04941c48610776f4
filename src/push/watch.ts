import { tapIterable } from '../core/iterables.js';
import type { Settling } from '../core/agent-port.js';
import type { TurnVerdict } from '../core/turn-verdict.js';
import { heldForVerdict } from './held-for-verdict.js';
import { copyCarriedConfigs, type CarriedConfigs } from './carried-configs.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import type { MappingProfile } from '../mappings/index.js';
import { eventTaskRef, withFields, type StreamResponse, type Task, type TaskPushNotificationConfig } from '../model/index.js';
import type { PushConfigStore } from './config-store/types.js';
import { holdWhileUnanswered, noticedChange, type HeldChangesOptions } from './held-changes.js';
import { withPayloadVersion, type PayloadVersion } from './payload.js';
import type { NotifiedEvents } from './notified-events.js';
import type { PushLogger, PushQueue } from './queue/types.js';
import { createChangeResolver } from './resolve-change.js';
import { createTaskTracks } from './task-tracks.js';
import type { V025TaskRenderer } from './v025-body.js';
import type { V1EventInliner } from './v1-body.js';

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
  /** The 0.2.5 facade's rendering of a pushed Task, once it is mounted (v025-body.ts); absent: the registry's copy, translated. */
  renderV025?: () => V025TaskRenderer | undefined;
  /** What a 1.0 caller is shown of an event's files (v1-body.ts); absent: the event as recorded. */
  inlineV1?: V1EventInliner;
  /** How changes noticed while the config store cannot answer are held (journal, bound, backoff). */
  held?: Omit<HeldChangesOptions, 'resolve' | 'logger'>;
}

export interface PushWatcher {
  /**
   * Passes a stream through unchanged, turning its events into push jobs on the side. `turnMessageId`: the id of
   * the caller's message that began the turn the stream carries, when known (NoticedChange). `verdict`: the sender
   * may yet drop the turn (CallContext.turnVerdict); its inline config is stored, and its events notified, only once
   * it went on (or the stream ended undecided). `carried`: the owner's configs of another task, stored for the stream's
   * task as its inline config is (and before its events are notified).
   */
  watchStream(
    source: AsyncIterable<StreamResponse>,
    inline?: InlineConfig,
    turnMessageId?: string,
    verdict?: TurnVerdict,
    carried?: CarriedConfigs,
  ): AsyncIterable<StreamResponse>;
  /**
   * A blocking answer (SendMessage, CancelTask); resolves once its inline config is stored. `turnMessageId`: a
   * send's, the id of the caller's message that began its turn.
   */
  observeAnswer(answer: StreamResponse, inline?: InlineConfig, turnMessageId?: string): Promise<void>;
  /**
   * A send's answer that showed the task as the turn found it (as-found.ts): the last turn's end, pushed then, and no
   * change. Resolves once its inline config is stored; every status the turn reaches next but the one found
   * (`asFound`, as-found.ts's key) is a change, as after a blocking answer (the agent may ask again in the state it
   * found), one that tells nothing of itself too; the one found read again (a subscription's Task while the agent
   * still thinks) is not.
   */
  answeredAsFound(taskId: string, asFound: string, inline?: InlineConfig): Promise<void>;
  /**
   * A snapshot of a task read after some of its events passed by (a follow's GetTask): notified only if its state
   * moved on. `turnMessageId`: the followed turn's, when known.
   */
  observeTask(task: Task, turnMessageId?: string): void;
  /** Resolves once every accepted event is queued or held. */
  drain(): Promise<void>;
  /** Drains, then resolves the held changes one last time (those still out of reach stay journaled). */
  stop(): Promise<void>;
}

/**
 * Watches the events that pass through the decorated port. Each accepted event becomes a step on
 * its task's promise chain (inline config first, then events in order), so the stream never waits
 * for a store read or a queue write (only its first event, for the inline config to be stored), yet
 * nothing is reordered or dropped; `drain` waits for them.
 * While several streams carry one task (a SubscribeToTask beside the SendStreamingMessage), only
 * the first one is watched, like the gateway records only the first.
 */
export function createPushWatcher(deps: PushWatcherDeps): PushWatcher {
  const { store, logger } = deps;
  // A change whose configs cannot be read yet (their Redis is away) is held, not dropped.
  const held = holdWhileUnanswered(withFields(deps.held, { resolve: createChangeResolver(deps), logger }));
  const tails = new Map<string, Promise<void>>();
  const tracks = createTaskTracks(deps);
  const openStreams = new Map<string, symbol[]>();

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
    const create = async (): Promise<void> => void (await store.create(inline.owner, taskId, withPayloadVersion(inline.config, inline.version)));
    return chain(taskId, create, 'A2A inline push notification config could not be stored');
  }

  /** What a stream's task gets once known: the config sent with its turn, and the configs it carries. */
  function storeTurnConfigs(taskId: string, inline: InlineConfig | undefined, carried: CarriedConfigs | undefined): Promise<void> {
    const moved = carried && carried.taskId !== taskId ? carried : undefined;
    const copied = moved && chain(taskId, () => copyCarriedConfigs(store, moved, taskId), 'A2A push configs a turn carried could not be stored');
    return Promise.all([inline && storeInline(taskId, inline), copied]).then(() => undefined);
  }

  function observe(event: StreamResponse, taskId: string, wholeTurn = false, turnMessageId?: string): void {
    const accepted = tracks.accept(event, taskId, wholeTurn, turnMessageId);
    if (!accepted) return;
    const change = noticedChange({
      taskId,
      event,
      eventId: accepted.eventId,
      stable: accepted.stable,
      ...(turnMessageId !== undefined ? { turnMessageId } : {}),
    });
    void chain(taskId, () => held.notify(change), 'A2A push notification could not be queued');
  }

  function watchStream(
    source: AsyncIterable<StreamResponse>,
    inline?: InlineConfig,
    turnMessageId?: string,
    verdict?: TurnVerdict,
    carried?: CarriedConfigs,
  ): AsyncIterable<StreamResponse> {
    const self = Symbol('push-watch');
    const joined = new Set<string>();
    let pending = inline !== undefined || carried !== undefined;
    // The events are notified, and the configs stored, once the sender says the turn went on: it may yet drop it, and
    // then nothing of it is pushed, not even to configs set earlier on the task it was aimed at (which the agent failed
    // as gone: the turn went on in another task, whose webhooks those configs follow).
    const undecided = verdict
      ? heldForVerdict(verdict, async (taskId) => {
          if (!pending) return;
          pending = false;
          await storeTurnConfigs(taskId, inline, carried);
        })
      : undefined;
    return tapIterable(source, {
      item(event) {
        const { taskId } = eventTaskRef(event);
        if (!taskId) return;
        if (!joined.has(taskId)) {
          joined.add(taskId);
          const streams = openStreams.get(taskId);
          if (streams) streams.push(self);
          else openStreams.set(taskId, [self]);
        }
        const first = openStreams.get(taskId)?.[0] === self;
        if (undecided?.holding()) {
          undecided.hold(taskId, () => {
            if (first) observe(event, taskId, false, turnMessageId);
          });
          return;
        }
        if (undecided?.dropped()) return;
        // This event tells the caller its task exists: the configs of the turn are stored first, as for a
        // blocking answer, or a gateway killed once it is sent would have nothing to push the turn's end to.
        const stored = pending ? storeTurnConfigs(taskId, inline, carried) : undefined;
        pending = false;
        if (first) observe(event, taskId, false, turnMessageId);
        return stored;
      },
      end() {
        // Undecided at its end (its caller left, the agent broke off): the turn went on as far as push can tell.
        void undecided?.settle(true);
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

    async observeAnswer(answer, inline, turnMessageId) {
      const { taskId } = eventTaskRef(answer);
      if (!taskId) {
        if (inline) logger.info({}, 'inline push notification config ignored: the answer names no task');
        return;
      }
      const stored = inline ? storeInline(taskId, inline) : undefined;
      observe(answer, taskId, true, turnMessageId);
      await stored;
    },

    async answeredAsFound(taskId, asFound, inline) {
      const stored = inline ? storeInline(taskId, inline) : undefined;
      tracks.turnBeganOn(taskId, asFound);
      await stored;
    },

    observeTask: (task, turnMessageId) => observe({ task }, task.id, false, turnMessageId),

    async drain() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
    },

    async stop() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
      await held.stop();
    },
  };
}
