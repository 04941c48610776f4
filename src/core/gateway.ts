import type { Logger } from 'pino';
import { withFields } from '../model/index.js';
import { admitting } from './admission.js';
import type { AgentPort, CallContext, Settling } from './agent-port.js';
import { createContextLanes, type ContextLanes, type LetGo } from './context-lanes.js';
import { fanningOut } from './fan-out.js';
import { recording } from './recording.js';
import { answeringRepeatedMessages } from './repeated-messages.js';
import { createRedaction, redacting } from './redact.js';
import { subscribable } from './subscribable.js';
import { settlesWithin } from '../settles-within.js';
import { streamsOpeningWithTask } from './stream-opening.js';
import { createTaskEventHub, type TaskEventHub } from './task-event-hub.js';
import type { TaskMeta, TaskRegistry } from './task-registry/types.js';
import { taskScoped, type UnknownTasks } from './task-scope.js';
import { createTaskWriter, type RegistryWriteWatch } from './task-writer.js';
import { limitingTurns, type TurnLimits } from './turn-limits.js';

export interface GatewayDeps {
  registry: TaskRegistry;
  lanes?: ContextLanes;
  hub?: TaskEventHub;
  upstreamName: string;
  /** Message metadata keys the agent keeps secrets under, redacted besides the generic pattern (an agent like iac-code: upstream/iac-code/secrets.ts). */
  secretKeys?: readonly string[];
  /** The gateway's own credentials for the agent, which a failure's reason must not repeat (redact.ts). */
  secretValues?: readonly string[];
  logger?: Logger;
  /** Told of registry writes being tried again and of those given up (metrics). */
  registryWrites?: RegistryWriteWatch;
  /**
   * Who answers for a task the registry does not know (task-scope.ts); default 'agent', right only where
   * every caller is anonymous (unknownTasksFor in surface-options.ts says which a config needs).
   */
  unknownTasks?: UnknownTasks;
  /** Each client's turns in flight against its cap (`limits`, turn-limits.ts); absent: no cap. */
  turnLimits?: TurnLimits;
  /** `tasks.lost-after-ms` (lost-tasks.ts). */
  lostAfterMs?: number;
}

/**
 * Resolves once no turn runs on the caller's (`principal`'s) own context (its lane, held by whichever replica runs
 * the turn), or after `withinMs` (ContextLanes.letGo, which says how the wait ended): for a message that may have
 * come as the caller of that turn hung up. At once, `free`, on a context recorded as another caller's.
 */
export type TurnLetGo = (contextId: string, principal: string, withinMs: number) => Promise<LetGo>;

export type Gateway = AgentPort & Settling & { events: TaskEventHub; turnLetGo: TurnLetGo };

/**
 * The core: the upstream's AgentPort under a stack of decorators, each one concern, read here from
 * the caller down to the agent. Two helpers are shared rather than stacked: the task writer (every
 * registry write, and `settled`, which readers wait on) and the event hub (in-process subscribers).
 */
export function createGateway(upstream: AgentPort, deps: GatewayDeps): Gateway {
  const { registry, upstreamName, logger } = deps;
  const lanes = deps.lanes ?? createContextLanes();
  const hub = deps.hub ?? createTaskEventHub();
  const writer = createTaskWriter(registry, logger, {}, deps.registryWrites);
  const redaction = createRedaction(deps.secretKeys, deps.secretValues);
  const metaOf = (ctx: CallContext, tenant: string): TaskMeta => ({ owner: ctx.principal, upstream: upstreamName, tenant });
  const laneKey = (contextId: string) => `${upstreamName}\u0000${contextId}`;

  // A task of another principal does not exist for the caller; reads wait for the task's writes.
  const scoped = taskScoped(
    // One turn per context, in the caller's own contexts only.
    admitting(
      // In-process subscribers get every event.
      fanningOut(
        // The registry records every task, streams folded and written at state changes and at their end.
        recording(
          // SubscribeToTask: the task first, never on a finished or input-required task.
          subscribable(
            // Nothing the agent echoes back keeps a secret.
            redacting(
              // A stream opens with a Task (an update first gets one in front), a follow-up's with the task as recorded.
              streamsOpeningWithTask(upstream, registry),
              redaction,
            ),
            registry,
          ),
          withFields({ registry, writer, redaction, metaOf }, deps.lostAfterMs === undefined ? {} : { lostAfterMs: deps.lostAfterMs }),
        ),
        hub,
      ),
      { registry, lanes, laneKey, settling: writer, ...(logger ? { logger } : {}) },
    ),
    { registry, settling: writer, unknownTasks: deps.unknownTasks ?? 'agent' },
  );
  // A client past its cap on turns in flight is refused before anything is asked.
  const limits = deps.turnLimits;
  const capped = limits ? limitingTurns(scoped, withFields(limits, { registry, lanes, laneKey, settling: writer })) : scoped;
  // A message it already ran a turn for, sent again once that turn ended (a retry whose answer was lost), runs nothing.
  const port = answeringRepeatedMessages(capped, { registry, redaction, settling: writer });
  // Lanes are per context, whoever's: another caller's context is refused by admission's scope check whatever runs
  // there, and a wait on its lane would tell that caller that a turn does (and cost it the wait for nothing). A
  // context without a scope is anyone's, as admission has it (a message naming it claims it; one the agent named for
  // a stream is recorded a moment after its lane was taken).
  const turnLetGo: TurnLetGo = async (contextId, principal, withinMs) => {
    const scope = registry.contextScope(contextId).catch(() => undefined);
    // A store that does not answer within the wait (frozen) ends it: the message's own reads then say what is wrong.
    if (!(await settlesWithin(scope, withinMs))) return 'free';
    const owner = (await scope)?.owner;
    if (owner !== undefined && owner !== principal) return 'free';
    // The whole wait for the lane, from its first read: a slow read of the scope leaves the turn no less time to go.
    return lanes.letGo(laneKey(contextId), withinMs);
  };
  return Object.assign(port, { events: hub, settled: writer.settled, turnLetGo });
}
