/**
 * What every real a2a-js 1.x test agent shares: serving an executor with the SDK's DefaultRequestHandler
 * (JSON-RPC and HTTP+JSON over express) on 127.0.0.1, and the Task a turn opens with.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { TaskState, type AgentCard, type Message } from 'a2a-sdk-1';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutionEvent,
  type AgentExecutor,
  type ServerCallContextBuilder,
} from 'a2a-sdk-1/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from 'a2a-sdk-1/server/express';

export interface SdkServerPaths {
  jsonRpc: string;
  rest: string;
}

export interface SdkServerOptions {
  /** Builds each call's ServerCallContext (e.g. to activate extensions); the SDK's default otherwise. */
  contextBuilder?: ServerCallContextBuilder;
  /** Signs the card on every card fetch. */
  signCard?: (card: AgentCard) => Promise<AgentCard>;
}

export interface RunningSdkServer {
  url: string;
  server: Server;
}

/** Serves `executor` behind the card `buildCard(baseUrl)` on a free port. */
export async function serveSdkAgent(
  buildCard: (baseUrl: string) => AgentCard,
  executor: AgentExecutor,
  paths: SdkServerPaths,
  options: SdkServerOptions = {},
): Promise<RunningSdkServer> {
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
  const card = buildCard(url);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const { contextBuilder, signCard } = options;
  const agentCardProvider = signCard ? () => signCard(card) : handler;
  const handlerOptions = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...(contextBuilder ? { contextBuilder } : {}) };
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider }));
  app.use(paths.jsonRpc, jsonRpcHandler(handlerOptions));
  app.use(paths.rest, restHandler(handlerOptions));
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
