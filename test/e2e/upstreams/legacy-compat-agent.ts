/**
 * A REAL a2a-js 1.x agent with its 0.3 compatibility on (`legacyCompat`), whose card lists the interfaces a
 * test gives it: 1.0 only, 0.3 only, or both. Its JSON-RPC and HTTP+JSON handlers are mounted whatever the
 * card says, and each serves 1.0 or 0.3 by the caller's `A2A-Version` (the SDK refuses a version the card does
 * not list for that binding). Every turn is answered with a Message naming the version the agent was spoken
 * to in, so a caller reads which protocol the gateway chose.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Role, type AgentCard, type Message } from 'a2a-sdk-1';
import { DefaultRequestHandler, InMemoryTaskStore, AgentEvent, type AgentExecutor, type TaskStore } from 'a2a-sdk-1/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from 'a2a-sdk-1/server/express';

export type CompatBinding = 'JSONRPC' | 'HTTP+JSON';
export interface CompatInterface {
  binding: CompatBinding;
  version: '1.0' | '0.3';
}

export const answerText = (version: string, prompt: string): string => `answered over A2A ${version}: ${prompt}`;

const PATHS: Record<CompatBinding, string> = { JSONRPC: '/a2a/jsonrpc', 'HTTP+JSON': '/a2a/rest' };

/** The user's text of a message. */
export const promptOf = (message: Message): string =>
  message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

/** An agent's text message, naming `taskId` ('' for none). */
export function agentTextMessage(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const answersInItsVersion: AgentExecutor = {
  async execute(request, bus): Promise<void> {
    bus.publish(
      AgentEvent.message(agentTextMessage(answerText(request.context.requestedVersion, promptOf(request.userMessage)), '', request.contextId)),
    );
  },
  async cancelTask(): Promise<void> {},
};

export interface CompatAgentSpec {
  name: string;
  description: string;
  interfaces: CompatInterface[];
  executor: AgentExecutor;
  store?: TaskStore;
}

function card(baseUrl: string, spec: CompatAgentSpec): AgentCard {
  return {
    name: spec.name,
    description: spec.description,
    supportedInterfaces: spec.interfaces.map(({ binding, version }) => ({
      url: `${baseUrl}${PATHS[binding]}`,
      protocolBinding: binding,
      protocolVersion: version,
      tenant: '',
    })),
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'answer', name: 'Answer', description: 'Answers', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
    ],
    signatures: [],
  };
}

export interface RunningCompatAgent {
  url: string;
  close(): Promise<void>;
}

/** Serves `spec.executor` on a free port with 0.3 compatibility on, both bindings mounted whatever the card lists. */
export async function serveLegacyCompatAgent(spec: CompatAgentSpec): Promise<RunningCompatAgent> {
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = new DefaultRequestHandler(card(url, spec), spec.store ?? new InMemoryTaskStore(), spec.executor);
  const legacyCompat = { enabled: true };
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  const options = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat };
  app.use(PATHS.JSONRPC, jsonRpcHandler(options));
  app.use(PATHS['HTTP+JSON'], restHandler(options));
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The agent that answers every turn with the version it was spoken to in. */
export const startLegacyCompatAgent = (interfaces: CompatInterface[]): Promise<RunningCompatAgent> =>
  serveLegacyCompatAgent({
    name: 'sdk-legacy-compat',
    description: 'An a2a-js 1.x agent with 0.3 compatibility on.',
    interfaces,
    executor: answersInItsVersion,
  });
