/**
 * A REAL a2a-js 1.x server that plays back, per prompt, a script of what an agent publishes: status updates
 * (with a message under a named message id, or an id of its own), artifact chunks, and a Task as the agent
 * holds it. Announced as streaming or not (a gateway sends an agent that does not stream blocking calls).
 */
import { randomUUID } from 'node:crypto';
import type { Part, TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import {
  agentMessage,
  promptOf,
  startSdkTestAgent,
  turnEvents,
  type RunningTestAgent,
  type Said,
  type TestAgentCardSpec,
} from '../../support/sdk-v1-agent-kit.js';

export type Step =
  /** A status update; `id` names its message's id (the same name, the same id within a turn). */
  | { status: TaskState; said?: Said; id?: string }
  | { artifact: string; parts: Part[]; append: boolean; last: boolean }
  /** The Task as the agent holds it: this status message, these artifacts. */
  | { task: TaskState; said?: Said; artifacts?: Array<{ id: string; parts: Part[] }> };

/** A turn's steps; `bare`: the turn does not open with the submitted Task (its first step is a Task). */
export interface Script {
  steps: Step[];
  bare?: boolean;
}

class Player implements AgentExecutor {
  constructor(private readonly scripts: Record<string, Script>) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = request;
    const { opening, status, artifact } = turnEvents(request);
    const script = this.scripts[promptOf(userMessage, ' ').trim()];
    if (!script) {
      bus.publish(AgentEvent.message(agentMessage('no such script', '', contextId)));
      return;
    }
    const ids = new Map<string, string>();
    const idOf = (name?: string): string => {
      if (name === undefined) return randomUUID();
      if (!ids.has(name)) ids.set(name, randomUUID());
      return ids.get(name)!;
    };
    if (!script.bare) bus.publish(opening());
    for (const step of script.steps) {
      if ('status' in step) bus.publish(status(step.status, step.said, idOf(step.id)));
      else if ('artifact' in step) bus.publish(artifact(step.artifact, step.parts, step.append, step.last));
      else {
        const message = step.said === undefined ? undefined : agentMessage(step.said, taskId, contextId);
        const artifacts = (step.artifacts ?? []).map(({ id, parts }) => ({
          artifactId: id,
          name: id,
          description: '',
          parts,
          metadata: undefined,
          extensions: [],
        }));
        const taskStatus = { state: step.task, message, timestamp: new Date().toISOString() };
        bus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: taskStatus,
            artifacts,
            history: [userMessage, ...(message ? [message] : [])],
            metadata: undefined,
          }),
        );
      }
    }
  };

  cancelTask = async (): Promise<void> => undefined;
}

const CARD: TestAgentCardSpec = {
  name: 'script player',
  description: 'plays back scripted turns',
  skill: { id: 'scripts', name: 'Scripts', description: 'plays the script its prompt names' },
};

/** Serves `scripts` (by prompt); `streaming: false` announces an agent that does not stream. */
export const startScriptPlayer = (scripts: Record<string, Script>, { streaming = true } = {}): Promise<RunningTestAgent> =>
  startSdkTestAgent({ ...CARD, streaming }, new Player(scripts));
