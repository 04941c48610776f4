import { createHash } from 'node:crypto';
import { withFields } from '../model/index.js';
import type { StoredConfig } from './config-store/types.js';
import type { NoticedChange, Unresolved } from './held-changes.js';
import { isOutOfReach } from './out-of-reach.js';
import { CONTENT_TYPE, EVENT_ID_HEADER, eventState, isNotifiedState, storedPayloadVersion, type PayloadVersion } from './payload.js';
import { newPushJob } from './queue/types.js';
import { stateAtOf } from './stale-notifications.js';
import { translatedV025, v025Body } from './v025-body.js';
import { v025Source } from './v025-turn-end.js';
import { v1Body } from './v1-body.js';
import { v1TurnEnd } from './v1-turn-end.js';
import type { PushWatcherDeps } from './watch.js';

/**
 * The claim of a 0.2.5 body: a receiver sent the whole Task has learnt nothing from the same Task again
 * (artifact updates of a turn read after it ended all read the same finished Task). The URL is part of
 * it: a config given a new URL is sent the task afresh.
 */
const bodyClaim = (url: string, payload: string): string =>
  `body:${createHash('sha256').update(url).update('\n').update(payload).digest('base64url')}`;

/** What one receiver is sent for one event. */
interface Notification {
  payload: string;
  /** `A2A-Event-Id`: the same on every retry. */
  eventId: string;
}

type ResolverDeps = Pick<
  PushWatcherDeps,
  'store' | 'queue' | 'registry' | 'profile' | 'events' | 'logger' | 'notified' | 'settled' | 'clientIdOf' | 'renderV025' | 'inlineV1'
>;

/**
 * Turns a noticed change into one job per config of its task. What cannot be read because Redis is out
 * of reach (the configs, or what a 0.2.5 payload is made of) is handed back as the part still to do,
 * for the watcher to hold; every other failure costs only its own config the notification, logged.
 */
export function createChangeResolver(deps: ResolverDeps): (change: NoticedChange) => Promise<Unresolved> {
  const { logger } = deps;

  /**
   * Whether a config still has to be sent an event: its stable id (and for a 0.2.5 config its body,
   * `bodyClaim`) is claimed first, and one another replica (or this process, or the process before a
   * restart) claimed already is skipped. A claim that cannot be made (Redis out of reach) queues the job
   * anyway: a duplicate the receiver can recognize by its id beats a lost notification.
   */
  async function firstClaim(entry: StoredConfig, eventId: string): Promise<boolean> {
    try {
      if (await deps.notified.claim(entry, eventId)) return true;
      logger.debug?.({ taskId: entry.taskId, configId: entry.id, eventId }, 'A2A push notification already queued; skipped');
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
   * A 0.2.5 receiver's notification: the whole Task as the facade's tasks/get answers it (v025-body.ts), or, for a turn's
   * end the record is not known to hold, the change's own Task (v025-turn-end.ts); the event id, both naming the task
   * by the id its caller chose when it chose one (the upstream's id stays behind the gateway).
   */
  async function v025Notification(change: NoticedChange, owner: string): Promise<Notification | undefined> {
    const { taskId, event, eventId } = change;
    await deps.settled(taskId);
    const state = eventState(event);
    const turnEnded = state !== undefined && isNotifiedState(state);
    const source = v025Source(await deps.registry.get(taskId, owner), event, turnEnded, change.turnMessageId);
    if (!source) return undefined;
    const clientId = await deps.clientIdOf?.(taskId, owner);
    const payload = source.asTasksGet
      ? await v025Body(deps, source.task, clientId ? { owner, clientTaskId: clientId, turnEnded } : { owner, turnEnded })
      : translatedV025(deps, source.task, clientId);
    return { payload, eventId: clientId ? `${clientId}${eventId.slice(taskId.length)}` : eventId };
  }

  /**
   * A 1.0 receiver's notification: the event as recorded, its files shown as 1.0 callers' calls show them; under
   * `push-events: terminal` the change that ends a turn is the Task with the turn's words (v1-turn-end.ts).
   */
  async function v1Notification(change: NoticedChange, owner: string): Promise<Notification> {
    const { taskId, event, eventId } = change;
    const pushed = deps.events === 'terminal' ? await v1TurnEnd(deps, taskId, owner, event, change.turnMessageId) : event;
    return { payload: await v1Body(deps, pushed), eventId };
  }

  async function enqueueFor(entry: StoredConfig, notification: Notification, version: PayloadVersion, change: NoticedChange): Promise<void> {
    const stateAt = stateAtOf(change.event, change.noticedAt, version);
    const job = newPushJob({
      eventId: notification.eventId,
      taskId: entry.taskId,
      configId: entry.id,
      owner: entry.owner,
      url: entry.config.url,
      payload: notification.payload,
      contentType: CONTENT_TYPE[version],
      headers: { [EVENT_ID_HEADER]: notification.eventId },
      ...(stateAt !== undefined ? { stateAt } : {}),
      ...(change.noticedAt !== undefined ? { noticedAt: change.noticedAt } : {}),
    });
    await deps.queue.enqueue(job);
  }

  /** The configs the change is still due to; a config deleted meanwhile is not sent it. */
  async function dueConfigs(change: NoticedChange): Promise<StoredConfig[]> {
    const configs = await deps.store.forTask(change.taskId);
    const due = change.configs;
    if (!due) return configs;
    return configs.filter((entry) => due.some(([owner, id]) => owner === entry.owner && id === entry.id));
  }

  return async function resolve(change) {
    const { taskId, eventId } = change;
    let configs: StoredConfig[];
    try {
      configs = await dueConfigs(change);
    } catch (error) {
      if (isOutOfReach(error)) return { rest: change, error };
      throw error;
    }
    const v025ByOwner = new Map<string, Promise<Notification | undefined>>();
    // Every 1.0 receiver of an owner (a task's configs are all its owner's) is sent the same body: the task is
    // read, and its files, once per change, not once per config.
    const v1ByOwner = new Map<string, Promise<Notification>>();
    const unread: Array<[string, string]> = [];
    let unreadError: unknown;
    for (const entry of configs) {
      const version = storedPayloadVersion(entry.config);
      let reading = true;
      const claimed: string[] = [];
      try {
        let notification: Notification | undefined;
        if (version === '1.0') {
          if (!v1ByOwner.has(entry.owner)) v1ByOwner.set(entry.owner, v1Notification(change, entry.owner));
          notification = await v1ByOwner.get(entry.owner);
        } else {
          if (!v025ByOwner.has(entry.owner)) v025ByOwner.set(entry.owner, v025Notification(change, entry.owner));
          notification = await v025ByOwner.get(entry.owner);
        }
        reading = false;
        if (notification === undefined) {
          logger.warn({ taskId, configId: entry.id }, 'A2A push notification skipped: the task is not in the registry');
          continue;
        }
        // Claimed last, just before queuing: a claim stands for a job that is queued.
        if (change.stable && !(await firstClaim(entry, eventId))) continue;
        claimed.push(...(change.stable ? [eventId] : []));
        const body = version === '0.2.5' ? bodyClaim(entry.config.url, notification.payload) : undefined;
        if (body !== undefined && !(await firstClaim(entry, body))) continue;
        claimed.push(...(body !== undefined ? [body] : []));
        await enqueueFor(entry, notification, version, change);
      } catch (error) {
        if (reading && isOutOfReach(error)) {
          unread.push([entry.owner, entry.id]);
          unreadError = error;
          continue;
        }
        // One config's failure must not cost the others their notification.
        logger.error({ err: error, taskId, configId: entry.id, eventId }, 'A2A push notification could not be queued');
        // Not queued: another replica that sees the same change (or a retry here) must still be free to queue it.
        for (const claim of claimed) await deps.notified.release(entry, claim).catch(() => undefined);
      }
    }
    return unread.length > 0 ? { rest: withFields(change, { configs: unread }), error: unreadError } : undefined;
  };
}
