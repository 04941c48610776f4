/**
 * An a2a-js 1.x agent that streams its reply token by token, each token a working status message under ONE message id
 * (an LLM-backed agent), then completes without words: its own store keeps the first token alone (chunk-runs.ts).
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { startSdkTestAgent, turnEvents, type RunningTestAgent } from './sdk-v1-agent-kit.js';

class TokenStreamer implements AgentExecutor {
  constructor(private readonly tokens: readonly string[]) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { opening, status } = turnEvents(request);
    bus.publish(opening());
    const id = randomUUID();
    for (const token of this.tokens) bus.publish(status(TaskState.TASK_STATE_WORKING, token, id));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
  };

  cancelTask = async (): Promise<void> => undefined;
}

export function startTokenStreamer(tokens: readonly string[]): Promise<RunningTestAgent> {
  return startSdkTestAgent(
    {
      name: 'token-streamer',
      description: 'streams its reply token by token under one message id',
      skill: { id: 'tokens', name: 'Tokens', description: 'any prompt' },
    },
    new TokenStreamer(tokens),
  );
}
