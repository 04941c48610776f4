/**
 * A real a2a-js 0.2.5 server (A2AExpressApp, DefaultRequestHandler, InMemoryTaskStore) whose executor
 * plays a script per prompt, the way 0.2.5 agents built for chat UIs answer: progress and tokens as
 * working status messages, a question in input-required, a failure with its reason, files and data as
 * artifacts. The prompt `reply:` answers the question of an input-required task on that task.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import type { AgentCard, Part, TaskState } from 'a2a-sdk-025';
import { A2AExpressApp, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus } from 'a2a-sdk-025/server';

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
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard & { protocolVersion: string } = {
    name: 'exchange-rates',
    description: 'Answers exchange rate questions',
    url: `${url}/a2a/`,
    version: '1.0.0',
    protocolVersion: '0.2.5',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'rates', name: 'Rates', description: 'Exchange rates', tags: ['finance'] }],
  };
  app.get('/.well-known/agent.json', (_request, response) => response.json(card));
  // The SDK's router is built with its own express 4; an express 5 app mounts it like any middleware.
  new A2AExpressApp(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)).setupRoutes(
    app as unknown as Parameters<A2AExpressApp['setupRoutes']>[0],
    '/a2a',
  );
  return {
    url,
    heard,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
