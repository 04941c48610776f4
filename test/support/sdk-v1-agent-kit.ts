/**
 * The scaffolding of the real a2a-js 1.x test agents, so that each keeps only its own scripts: its card,
 * the parts, messages, status and artifact updates its executor publishes, starting it behind
 * `serveSdkAgent` (JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest), and for the tests that cut its
 * stream, the gates it stops at and a store whose next load can be held.
 */
import { randomUUID } from 'node:crypto';
import { Role, type AgentCard, type AgentSkill, type Message, type Part, type Task, type TaskState } from 'a2a-sdk-1';
import {
  AgentEvent,
  InMemoryTaskStore,
  type AgentExecutionEvent,
  type AgentExecutor,
  type RequestContext,
  type ServerCallContext,
} from 'a2a-sdk-1/server';
import type { CuttingProxy } from './cutting-proxy.js';
import { openingTask, serveSdkAgent, type SdkServerOptions } from './sdk-v1-server.js';

/** What sets one test agent's card apart; the rest is the same for all of them. */
export interface TestAgentCardSpec {
  name: string;
  description: string;
  /** The agent's one skill (tagged `test`); its description names the prompts the agent knows. */
  skill: Pick<AgentSkill, 'id' | 'name' | 'description'> & Partial<Pick<AgentSkill, 'examples' | 'inputModes'>>;
  /** Announce the HTTP+JSON interface too (JSON-RPC alone otherwise). */
  rest?: boolean;
  /** The interfaces announced instead, each with its protocol version (an agent served as 0.3 with `legacyCompat`). */
  interfaces?: Array<{ binding: 'JSONRPC' | 'HTTP+JSON'; version: '1.0' | '0.3' }>;
  defaultOutputModes?: string[];
  /** What the card says of streaming (true by default): a gateway sends an agent that does not stream blocking calls. */
  streaming?: boolean;
}

const INTERFACE_PATHS = { JSONRPC: '/a2a/jsonrpc', 'HTTP+JSON': '/a2a/rest' } as const;

/** The card of a streaming test agent whose interfaces are at `baseUrl` (the agent's own, or a proxy's in front of it). */
export const testAgentCard =
  (spec: TestAgentCardSpec) =>
  (baseUrl: string): AgentCard => ({
    name: spec.name,
    description: spec.description,
    supportedInterfaces: (
      spec.interfaces ?? [{ binding: 'JSONRPC', version: '1.0' }, ...(spec.rest ? [{ binding: 'HTTP+JSON', version: '1.0' } as const] : [])]
    ).map(({ binding, version }) => ({
      url: `${baseUrl}${INTERFACE_PATHS[binding]}`,
      protocolBinding: binding,
      protocolVersion: version,
      tenant: '',
    })),
    provider: { organization: 'a2a-bridge tests', url: 'https://example.com' },
    version: '1.0.0',
    capabilities: { streaming: spec.streaming ?? true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: spec.defaultOutputModes ?? ['text/plain'],
    skills: [
      {
        id: spec.skill.id,
        name: spec.skill.name,
        description: spec.skill.description,
        tags: ['test'],
        examples: spec.skill.examples ?? [],
        inputModes: spec.skill.inputModes ?? [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  });

export interface RunningTestAgent {
  url: string;
  close(): Promise<void>;
}

export interface TestAgentOptions extends SdkServerOptions {
  /** A proxy in front of the agent: the card points callers at it, and it forwards to the agent. */
  behind?: CuttingProxy;
}

/** Serves `executor` on a free port (JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest) with the card `card` describes. */
export async function startSdkTestAgent(card: TestAgentCardSpec, executor: AgentExecutor, options: TestAgentOptions = {}): Promise<RunningTestAgent> {
  const { behind, ...serverOptions } = options;
  const buildCard = testAgentCard(card);
  const cardAt = behind ? () => buildCard(behind.url) : buildCard;
  const { url, server } = await serveSdkAgent(cardAt, executor, { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' }, serverOptions);
  if (behind) behind.target = { host: '127.0.0.1', port: Number(new URL(url).port) };
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A part with no metadata, no file name and no media type but those `extra` gives. */
export const part = (content: Part['content'], extra: Partial<Part> = {}): Part => ({
  content,
  metadata: undefined,
  filename: '',
  mediaType: '',
  ...extra,
});
export const textPart = (value: string): Part => part({ $case: 'text', value }, { mediaType: 'text/plain' });

/** The text of a user's message: its text parts joined by `separator`. */
export const promptOf = (message: Message, separator = ''): string =>
  message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(separator);

/** What an agent says: its words (one text part) or its parts. */
export type Said = string | Part[];

/** The agent's message in a task (taskId '' for a direct Message). */
export function agentMessage(said: Said, taskId: string, contextId: string, messageId: string = randomUUID()): Message {
  const parts = typeof said === 'string' ? [textPart(said)] : said;
  return { messageId, contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** A status update of the task, stamped now, with the agent's message when it says something. */
export function statusEvent(taskId: string, contextId: string, state: TaskState, said?: Said, messageId?: string): AgentExecutionEvent {
  const message = said === undefined ? undefined : agentMessage(said, taskId, contextId, messageId);
  return AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined });
}

/** An artifact-update of the task: the artifact `artifactId` (its name too) with `parts`, appended or not, its last chunk or not. */
function artifactEvent(
  taskId: string,
  contextId: string,
  artifactId: string,
  parts: Part[],
  append: boolean,
  lastChunk: boolean,
): AgentExecutionEvent {
  const artifact = { artifactId, name: artifactId, description: '', parts, metadata: undefined, extensions: [] };
  return AgentEvent.artifactUpdate({ taskId, contextId, artifact, append, lastChunk, metadata: undefined });
}

/** The events of one turn, bound to the task and context of `request`. */
export function turnEvents(request: RequestContext) {
  const { taskId, contextId, userMessage } = request;
  return {
    /** The Task the turn opens with: SUBMITTED, the user's message as its history. */
    opening: (): AgentExecutionEvent => openingTask(taskId, contextId, userMessage),
    status: (state: TaskState, said?: Said, messageId?: string): AgentExecutionEvent => statusEvent(taskId, contextId, state, said, messageId),
    artifact: (artifactId: string, parts: Part[], append: boolean, lastChunk: boolean): AgentExecutionEvent =>
      artifactEvent(taskId, contextId, artifactId, parts, append, lastChunk),
  };
}

/** The gates of one turn: the agent waits at gate `stopAt` (counted from 1) until the test opens it, and passes the others. */
export class Gates {
  stopAt = 0;
  /** How many gates the agent has reached, and passed. */
  reached = 0;
  passed = 0;
  /** The task of the latest turn. */
  taskId = '';
  private pending: Array<() => void> = [];
  async pass(): Promise<void> {
    this.reached++;
    if (this.reached === this.stopAt) await new Promise<void>((resolve) => this.pending.push(resolve));
    this.passed++;
  }
  /** Let the agent go on, up to gate `stopAt` (0: to the end). */
  open(stopAt = 0): void {
    this.stopAt = stopAt;
    this.pending.splice(0).forEach((resume) => resume());
  }
  reset(stopAt: number): void {
    this.open(stopAt);
    Object.assign(this, { reached: 0, passed: 0 });
  }
}

/**
 * The SDK's in-memory store, whose next load can be held: SubscribeToTask listens to the task's events before
 * it loads the snapshot, so what the agent says while the load is held comes in the snapshot and live too.
 */
export class HeldLoadStore extends InMemoryTaskStore {
  private hold: Promise<void> | undefined;
  private resume: () => void = () => undefined;
  /** A load waits on the hold. */
  holding = false;
  holdNextLoad(): void {
    this.hold = new Promise((resolve) => (this.resume = resolve));
  }
  releaseLoad(): void {
    this.resume();
  }
  override async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const hold = this.hold;
    this.hold = undefined;
    this.holding = hold !== undefined;
    await hold;
    this.holding = false;
    return super.load(taskId, context);
  }
}
