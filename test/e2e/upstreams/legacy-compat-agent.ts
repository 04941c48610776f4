/**
 * A REAL a2a-js 1.x agent with its 0.3 compatibility on (`legacyCompat`), whose card lists the interfaces a
 * test gives it: 1.0 only, 0.3 only, or both. Its JSON-RPC and HTTP+JSON handlers are mounted whatever the
 * card says, and each serves 1.0 or 0.3 by the caller's `A2A-Version` (the SDK refuses a version the card does
 * not list for that binding). Every turn is answered with a Message naming the version the agent was spoken
 * to in, so a caller reads which protocol the gateway chose.
 */
import { randomUUID } from 'node:crypto';
import { Role, type Message } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type TaskStore } from 'a2a-sdk-1/server';
import { startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

export type CompatBinding = 'JSONRPC' | 'HTTP+JSON';
export interface CompatInterface {
  binding: CompatBinding;
  version: '1.0' | '0.3';
}

export const answerText = (version: string, prompt: string): string => `answered over A2A ${version}: ${prompt}`;

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

/** Serves `spec.executor` on a free port with 0.3 compatibility on, both bindings mounted whatever the card lists. */
export const serveLegacyCompatAgent = (spec: CompatAgentSpec): Promise<RunningTestAgent> =>
  startSdkTestAgent(
    { name: spec.name, description: spec.description, skill: { id: 'answer', name: 'Answer', description: 'Answers' }, interfaces: spec.interfaces },
    spec.executor,
    { legacyCompat: true, ...(spec.store ? { taskStore: spec.store } : {}) },
  );

/** The agent that answers every turn with the version it was spoken to in. */
export const startLegacyCompatAgent = (interfaces: CompatInterface[]): Promise<RunningTestAgent> =>
  serveLegacyCompatAgent({
    name: 'sdk-legacy-compat',
    description: 'An a2a-js 1.x agent with 0.3 compatibility on.',
    interfaces,
    executor: answersInItsVersion,
  });
