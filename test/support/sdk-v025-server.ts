/**
 * What every real a2a-js 0.2.5 test agent shares: serving an executor with the SDK's A2AExpressApp and
 * DefaultRequestHandler on 127.0.0.1, its card at `/.well-known/agent.json` (root) pointing at the
 * JSON-RPC endpoint `<base>/a2a/`, so a client has to follow the card.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { randomUUID } from 'node:crypto';
import type { AgentCard, TaskState, TaskStatusUpdateEvent } from 'a2a-sdk-025';
import { A2AExpressApp, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type TaskStore } from 'a2a-sdk-025/server';

export const SDK_V025_RPC_PATH = '/a2a';

/** A status update of the task `ids` saying `text` (an agent message of its own id), as a test executor publishes it. */
export const saidStatus = (ids: { taskId: string; contextId: string }, state: TaskState, text: string, final: boolean): TaskStatusUpdateEvent => ({
  kind: 'status-update',
  taskId: ids.taskId,
  contextId: ids.contextId,
  final,
  status: {
    state,
    timestamp: new Date().toISOString(),
    message: {
      kind: 'message',
      role: 'agent',
      messageId: randomUUID(),
      taskId: ids.taskId,
      contextId: ids.contextId,
      parts: [{ kind: 'text', text }],
    },
  },
});

/** The card fields an agent chooses (the url is where it is served); the rest default to a plain streaming text agent. */
export type SdkV025CardFields = Pick<AgentCard, 'name' | 'description' | 'skills'> &
  Partial<Omit<AgentCard, 'name' | 'description' | 'skills' | 'url'>> & {
    /** Default '0.2.5'; null leaves it out (the SDK's own AgentCard type has none). */
    protocolVersion?: string | null;
  };

export interface SdkV025ServerOptions {
  card: SdkV025CardFields;
  executor: AgentExecutor;
  /** Where the agent keeps its tasks; the SDK's in-memory store otherwise. */
  store?: TaskStore;
  /** Listen on this port (an agent restarted where it was); default a free one. */
  port?: number;
  /**
   * The agent's own middleware and routes, mounted after the body is parsed and before the card and the
   * SDK's routes, so a middleware here sees every request's body and guards them all.
   */
  extend?: (app: Express, card: AgentCard) => void;
  /** Runs first on close(): stop turns still running, whose open streams would keep the server open. */
  onClose?: () => void;
}

export interface RunningSdkV025Server {
  /** Base URL (card at `${url}/.well-known/agent.json`), no trailing slash. */
  url: string;
  card: AgentCard;
  close(): Promise<void>;
}

function buildCard(url: string, fields: SdkV025CardFields): AgentCard {
  const { name, description, skills, protocolVersion = '0.2.5', ...chosen } = fields;
  const card: AgentCard & { protocolVersion?: string } = {
    name,
    description,
    url: `${url}${SDK_V025_RPC_PATH}/`,
    version: '0.2.5-test',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills,
    ...chosen,
  };
  if (protocolVersion !== null) card.protocolVersion = protocolVersion;
  return card;
}

async function listen(server: Server, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Serves `executor` behind a 0.2.5 card on 127.0.0.1 and a free port (or `options.port`). */
export async function startSdkV025Server(options: SdkV025ServerOptions): Promise<RunningSdkV025Server> {
  const app = express();
  const server = createServer(app);
  const url = await listen(server, options.port ?? 0);
  const card = buildCard(url, options.card);
  app.use(express.json());
  app.use((req, _res, next) => {
    // The SDK's express-4 body parser reads the body again unless it sees its own "already parsed" flag.
    (req as unknown as { _body: boolean })._body = true;
    next();
  });
  options.extend?.(app, card);
  app.get('/.well-known/agent.json', (_req, res) => {
    res.json(card);
  });
  const handler = new DefaultRequestHandler(card, options.store ?? new InMemoryTaskStore(), options.executor);
  // The SDK's router is built with its own express 4; an express 5 app mounts it like any middleware.
  new A2AExpressApp(handler).setupRoutes(app as unknown as Parameters<A2AExpressApp['setupRoutes']>[0], SDK_V025_RPC_PATH);

  let closing: Promise<void> | undefined;
  return {
    url,
    card,
    close() {
      closing ??= new Promise<void>((resolve) => {
        options.onClose?.();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Open streams of stopped turns would keep close() waiting: cut them after a moment.
        setTimeout(() => server.closeAllConnections(), 50).unref();
      });
      return closing;
    },
  };
}
