import { A2AError, ErrorCode, isInterruptedState, type Message } from '../model/index.js';
import type { CallContext } from './agent-port.js';
import { contextBusyError, type ContextLanes, type Lease } from './context-lanes.js';
import type { AssertVisible } from './task-scope.js';
import type { TaskRegistry } from './task-registry/types.js';

/** How a message may enter its context: holding the lane, or riding along a paused turn (permission answer). */
export interface Admission {
  lease?: Lease;
  ridesAlong: boolean;
}

export interface AdmissionDeps {
  registry: TaskRegistry;
  lanes: ContextLanes;
  laneKey(contextId: string): string;
  settled(taskId: string): Promise<void>;
  assertVisible: AssertVisible;
}

/**
 * One turn per context: a message enters only when its context's lane is free (-32602 otherwise),
 * and only into a context of its own caller. A task's follow-up waits for the task's queued writes
 * first, so it sees the state the last turn left.
 */
export function contextAdmission(deps: AdmissionDeps): (message: Message, ctx: CallContext) => Promise<Admission> {
  const { registry, lanes, laneKey } = deps;
  return async (message, ctx) => {
    let contextId = message.contextId;
    if (message.taskId) {
      await deps.settled(message.taskId);
      await deps.assertVisible(message.taskId, ctx);
      const task = await registry.get(message.taskId, ctx.principal);
      contextId ??= task?.contextId;
      // iac-code's permission answer joins the paused turn whose stream still holds the lane.
      if (task && contextId && isInterruptedState(task.status.state) && (await lanes.holderTask(laneKey(contextId))) === task.id) {
        return { ridesAlong: true };
      }
    }
    if (!contextId) return { ridesAlong: false };
    const contextOwner = await registry.contextOwner(contextId);
    if (contextOwner !== undefined && contextOwner !== ctx.principal) {
      throw new A2AError(ErrorCode.InvalidParams, `Context ${contextId} is not available; start a new context`, {
        metadata: { contextId },
      });
    }
    const lease = await lanes.tryAcquire(laneKey(contextId), message.taskId);
    if (!lease) throw contextBusyError(contextId);
    return { lease, ridesAlong: false };
  };
}
