/**
 * A real a2a-js 0.2.5 server (A2AExpressApp, DefaultRequestHandler, InMemoryTaskStore) whose executor
 * plays a script per prompt, the way 0.2.5 agents built for chat UIs answer: progress and tokens as
 * working status messages, a question in input-required, a failure with its reason, files and data as
 * artifacts. The prompt `reply:` answers the question of an input-required task on that task.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Part, TaskState } from 'a2a-sdk-025';
import type { AgentExecutor, ExecutionEventBus } from 'a2a-sdk-025/server';
import { startSdkV025Server } from '../../support/sdk-v025-server.js';

export type ScriptStep =
  { say: string; state?: TaskState; messageId?: string } | { artifact: string; parts: Part[]; append?: boolean; lastChunk?: boolean };

export interface ScriptedV025Agent {
  url: string;
  /** The user texts each task was sent, by task id. */
  heard: Map<string, string[]>;
  close(): Promise<void>;
}

const textOf = (parts: Part[]): string => parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');

export async function startScriptedV025Agent(scripts: Record<string, ScriptStep[]>): Promise<ScriptedV025Agent> {
  const heard = new Map<string, string[]>();
  const executor: AgentExecutor = {
    async execute(request, bus: ExecutionEventBus) {
      const { taskId, contextId } = request;
      const prompt = textOf(request.userMessage.parts);
      heard.set(taskId, [...(heard.get(taskId) ?? []), prompt]);
      if (!request.task) {
        bus.publish({
          kind: 'task',
          id: taskId,
          contextId,
          status: { state: 'submitted', timestamp: new Date().toISOString() },
          history: [request.userMessage],
        });
      }
      const steps = scripts[prompt.startsWith('reply:') ? 'reply:' : prompt] ?? [{ say: `no script for ${prompt}`, state: 'completed' }];
      for (const step of steps) {
        await sleep(2);
        if ('artifact' in step) {
          const { artifact: artifactId, parts, append = false, lastChunk = true } = step;
          bus.publish({ kind: 'artifact-update', taskId, contextId, append, lastChunk, artifact: { artifactId, parts } });
          continue;
        }
        const state = step.state ?? 'working';
        const message = {
          kind: 'message' as const,
          role: 'agent' as const,
          messageId: step.messageId ?? randomUUID(),
          parts: [{ kind: 'text' as const, text: step.say }],
          taskId,
          contextId,
        };
        const final = state !== 'working';
        bus.publish({ kind: 'status-update', taskId, contextId, final, status: { state, message, timestamp: new Date().toISOString() } });
      }
      bus.finished();
    },
    async cancelTask() {},
  };
  const { url, close } = await startSdkV025Server({
    card: {
      name: 'exchange-rates',
      description: 'Answers exchange rate questions',
      version: '1.0.0',
      capabilities: { streaming: true },
      skills: [{ id: 'rates', name: 'Rates', description: 'Exchange rates', tags: ['finance'] }],
    },
    executor,
  });
  return { url, heard, close };
}
