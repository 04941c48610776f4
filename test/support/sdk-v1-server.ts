/**
 * What every real a2a-js 1.x test agent shares: serving an executor with the SDK's DefaultRequestHandler
 * (JSON-RPC and HTTP+JSON over express, or HTTP+JSON only) on 127.0.0.1, and the Task a turn opens with.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
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
  type TaskStore,
} from 'a2a-sdk-1/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from 'a2a-sdk-1/server/express';
import { A2AService, UserBuilder as GrpcUserBuilder, grpcService } from 'a2a-sdk-1/server/grpc';
import { Server as GrpcServer, ServerCredentials, type Metadata } from '@grpc/grpc-js';

export interface SdkServerPaths {
  jsonRpc: string;
  rest: string;
}

export interface RunningSdkServer {
  url: string;
  server: Server;
  /** With `grpcOnly`: the SDK's gRPC server (stop it with the HTTP one). */
  grpcServer?: GrpcServer;
}

export interface SdkServerOptions {
  /**
   * Serve the SDK's gRPC binding (`a2a-sdk-1/server/grpc` on @grpc/grpc-js) instead of JSON-RPC and
   * HTTP+JSON; the card (still over HTTP) is built with the gRPC `host:port`.
   */
  grpcOnly?: boolean;
  /** Where the string metadata of every gRPC call received goes. */
  grpcMetadata?: Array<Record<string, string>>;
  /** Builds each call's ServerCallContext (e.g. to activate extensions); the SDK's default otherwise. */
  contextBuilder?: ServerCallContextBuilder;
  /** Signs the card on every card fetch. */
  signCard?: (card: AgentCard) => Promise<AgentCard>;
  /** Where the agent keeps its tasks; the SDK's in-memory store otherwise. */
  taskStore?: TaskStore;
  /** Serve HTTP+JSON only: no JSON-RPC route at all. */
  restOnly?: boolean;
  /** Serve HTTPS (and gRPC over TLS) with this certificate, and require a client certificate signed by `ca`. */
  mutualTls?: { cert: Buffer; key: Buffer; ca: Buffer };
  /** Where every HTTP request received goes (method, path, the headers a test checks). */
  httpRequests?: SeenHttpRequest[];
  /** Serve A2A 0.3 too (the SDK's `legacyCompat`): a caller without `A2A-Version` gets the 0.3 card and wire. */
  legacyCompat?: boolean;
}

export interface SeenHttpRequest {
  method: string;
  path: string;
  a2aVersion?: string;
  authorization?: string;
}

/** A gRPC server on a free port (grpc-js takes services after binding), recording each call's metadata. */
async function startGrpc(tls: SdkServerOptions['mutualTls']): Promise<{ grpcServer: GrpcServer; port: number }> {
  const grpcServer = new GrpcServer();
  const serverCredentials = tls
    ? ServerCredentials.createSsl(tls.ca, [{ private_key: tls.key, cert_chain: tls.cert }], true)
    : ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', serverCredentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { grpcServer, port };
}

/** A user builder that notes the string metadata of every call. */
const recordingUsers = (seen: Array<Record<string, string>>) => async (call: { metadata: Metadata }) => {
  const entries = Object.entries(call.metadata.getMap()).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  seen.push(Object.fromEntries(entries));
  return GrpcUserBuilder.noAuthentication();
};

/** Serves `executor` behind the card `buildCard(baseUrl)` on a free port. */
export async function serveSdkAgent(
  buildCard: (baseUrl: string, grpcAddress?: string) => AgentCard,
  executor: AgentExecutor,
  paths: SdkServerPaths,
  options: SdkServerOptions = {},
): Promise<RunningSdkServer> {
  const app = express();
  const tls = options.mutualTls;
  const server: Server = tls ? createHttpsServer({ ...tls, requestCert: true, rejectUnauthorized: true }, app) : createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grpc = options.grpcOnly ? await startGrpc(tls) : undefined;
  const card = buildCard(url, grpc ? `127.0.0.1:${grpc.port}` : undefined);
  const handler = new DefaultRequestHandler(card, options.taskStore ?? new InMemoryTaskStore(), executor);
  const { contextBuilder, signCard } = options;
  const agentCardProvider = signCard ? () => signCard(card) : handler;
  const seen = options.httpRequests;
  if (seen) {
    app.use((req, _res, next) => {
      const { 'a2a-version': a2aVersion, authorization } = req.headers;
      seen.push({
        method: req.method,
        path: req.path,
        ...(typeof a2aVersion === 'string' ? { a2aVersion } : {}),
        ...(typeof authorization === 'string' ? { authorization } : {}),
      });
      next();
    });
  }
  const legacyCompat = options.legacyCompat ? { legacyCompat: { enabled: true } } : {};
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider, ...legacyCompat }));
  if (grpc) {
    grpc.grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: recordingUsers(options.grpcMetadata ?? []) }));
    return { url, server, grpcServer: grpc.grpcServer };
  }
  const handlerOptions = {
    requestHandler: handler,
    userBuilder: UserBuilder.noAuthentication,
    ...(contextBuilder ? { contextBuilder } : {}),
    ...legacyCompat,
  };
  if (!options.restOnly) app.use(paths.jsonRpc, jsonRpcHandler(handlerOptions));
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
