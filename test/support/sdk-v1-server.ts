/**
 * What every real a2a-js 1.x test agent shares: serving an executor with the SDK's DefaultRequestHandler
 * (JSON-RPC and HTTP+JSON over express) on 127.0.0.1, and the Task a turn opens with.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { TaskState, type AgentCard, type Message } from 'a2a-sdk-1';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutionEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from 'a2a-sdk-1/server/express';

export interface SdkServerPaths {
  jsonRpc: string;
  rest: string;
}

export interface RunningSdkServer {
  url: string;
  server: Server;
}

/** Serves `executor` behind the card `buildCard(baseUrl)` on a free port. */
export async function serveSdkAgent(buildCard: (baseUrl: string) => AgentCard, executor: AgentExecutor, paths: SdkServerPaths): Promise<RunningSdkServer> {
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = new DefaultRequestHandler(buildCard(url), new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use(paths.jsonRpc, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use(paths.rest, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return { url, server };
}

/** The Task a turn opens with: SUBMITTED, the user's message as its history. */
export function openingTask(taskId: string, contextId: string, userMessage: Message): AgentExecutionEvent {
  return AgentEvent.task({
    id: taskId,
    contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [userMessage],
    metadata: undefined,
  });
}
