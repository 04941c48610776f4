import type { Logger } from 'pino';
import { eventTaskRef, type Message, type StreamResponse } from '../model/index.js';
import type { ContextLanes, Lease } from './context-lanes.js';
import type { OpenStreams } from './open-streams.js';
import { redactEvent, redactMessage } from './redact.js';
import type { TaskEventHub } from './task-event-hub.js';
import type { TaskMeta } from './task-registry/types.js';
import type { WriteChains } from './write-chains.js';

/** What a relayed stream reads and how it holds its context's lane. */
export interface RelayPlan {
  source: AsyncIterable<StreamResponse>;
  lease?: Lease;
  takeLaneOnContext: boolean;
  followUp?: Message;
}

export interface RelayDeps {
  lanes: ContextLanes;
  laneKey(contextId: string): string;
  writes: WriteChains;
  openStreams: OpenStreams;
  hub: TaskEventHub;
  logger?: Logger;
}

export type Relay = (meta: TaskMeta, open: () => Promise<RelayPlan>) => AsyncGenerator<StreamResponse>;

/**
 * Pass a stream through: redact, record, publish, yield each event the moment it arrives. Leaving
 * early (consumer `return()`) exits the for-await, which returns the upstream iterator. `open`
 * (admission, then the upstream call) runs on the first pull, inside this one generator: a generator
 * per layer would cost every open stream its own pending promises. The stream waits for its writes
 * before it frees the context lane, so the next turn and every in-process reader see the finished state.
 */
export function createRelay(deps: RelayDeps): Relay {
  const { lanes, laneKey, writes, openStreams, hub, logger } = deps;
  return async function* relay(meta, open) {
    const { source, ...options } = await open();
    const self = Symbol('stream');
    const lastWrites = new Map<string, Promise<void>>();
    const joined = new Set<string>();
    let lease = options.lease;
    let takeLane = options.takeLaneOnContext && !lease;
    let followUp = options.followUp;
    try {
      for await (const upstreamEvent of source) {
        const event = redactEvent(upstreamEvent);
        const { taskId, contextId } = eventTaskRef(event);
        if (takeLane && contextId) {
          // A new context became known: from now on a concurrent message on it is rejected. Taken before
          // the event is yielded, so no caller can know the context before its lane is held.
          takeLane = false;
          lease = await lanes.tryAcquire(laneKey(contextId), taskId).catch((error: unknown) => {
            logger?.warn({ err: error, contextId }, 'context lane could not be taken');
            return undefined;
          });
        }
        if (lease && taskId && !lease.taskId) lease.bindTask(taskId);
        if (taskId) {
          joined.add(taskId);
          if (openStreams.join(taskId, self)) {
            if (followUp && followUp.taskId === taskId && !('task' in event)) {
              // The caller's follow-up joins the history first, as the SDK's task manager does.
              void writes.record({ message: redactMessage(followUp) }, meta, taskId);
            }
            followUp = undefined;
            lastWrites.set(taskId, writes.record(event, meta, taskId));
            hub.publish(event);
          }
        }
        yield event;
      }
    } finally {
      await Promise.all(lastWrites.values());
      for (const taskId of openStreams.leave(self, joined)) hub.end(taskId);
      await lease?.release();
    }
  };
}
