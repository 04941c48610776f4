/**
 * A REAL a2a-js 1.x server (express, the SDK's DefaultRequestHandler, JSON-RPC and HTTP+JSON handlers)
 * with a deterministic executor, used as the upstream of the end-to-end tests: the gateway must work
 * in front of an agent it was not written against.
 *
 * A turn for the user text T on its context's N-th turn publishes, in order:
 *   Task (SUBMITTED, history [user message]) → statusUpdate WORKING →
 *   one artifactUpdate per chunk of `SDK echo (turn N): T` (artifact `<taskId>-reply`, appended) →
 *   statusUpdate COMPLETED whose agent message carries the whole reply.
 * A text starting with `slow:` adds SLOW_EXTRA_CHUNKS "." chunks, each after `slowChunkDelayMs`, so a
 * test can cancel, subscribe or send into a running turn. CancelTask stops the turn and ends it CANCELED.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Role, TaskState, type AgentCard, type AgentExtension, type Message, type Part } from 'a2a-sdk-1';
import {
  AgentEvent,
  defaultServerCallContextBuilder,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContextBuilder,
} from 'a2a-sdk-1/server';
import { openingTask, serveSdkAgent, type SeenHttpRequest } from './sdk-v1-server.js';

export const SDK_AGENT_NAME = 'sdk-v1-echo';
export const SDK_SLOW_PREFIX = 'slow:';
export const SDK_SLOW_EXTRA_CHUNKS = 10;
export const SDK_CANCELED_TEXT = 'Canceled by request.';
/** Where the agent mounts its bindings; deliberately not `/`, so a caller must follow the card. */
export const SDK_JSONRPC_PATH = '/a2a/jsonrpc';
export const SDK_REST_PATH = '/a2a/rest';

export interface SdkV1AgentOptions {
  /** Pause before each chunk of an ordinary turn (default 0: the turn runs at once). */
  chunkDelayMs?: number;
  /** Pause before each chunk of a `slow:` turn (default 60 ms). */
  slowChunkDelayMs?: number;
  /**
   * Serve the SDK's gRPC binding (`a2a-sdk-1/server/grpc` on @grpc/grpc-js) instead of JSON-RPC and
   * HTTP+JSON: the card (still over HTTP) then lists only a GRPC interface.
   */
  grpcOnly?: boolean;
  /** Serve and advertise only the HTTP+JSON binding (no JSON-RPC route). */
  restOnly?: boolean;
  /** Serve HTTPS (and gRPC over TLS) and require a client certificate signed by `ca`. */
  mutualTls?: { cert: Buffer; key: Buffer; ca: Buffer };
  /** Extensions the card declares; a call that requests one of them gets it activated (echoed in the response header). */
  extensions?: Array<Pick<AgentExtension, 'uri'> & Partial<AgentExtension>>;
  /** Signs the card on every card fetch (so a test can switch keys between fetches). */
  signCard?: (card: AgentCard) => Promise<AgentCard>;
  /** The tenant every interface of the card names (default none). */
  tenant?: string;
  /** What the card says of streaming (default true); the SDK's handler refuses streaming methods when false. */
  streaming?: boolean;
}

/** The extension headers one call arrived with, as sent (undefined when absent). */
export interface SeenExtensionHeaders {
  'a2a-extensions'?: string;
  'x-a2a-extensions'?: string;
}

export interface RunningSdkV1Agent {
  /** Base URL (card at `${url}/.well-known/agent-card.json`), no trailing slash. */
  url: string;
  /** With `grpcOnly`: the metadata of every gRPC call received, oldest first (string entries). */
  grpcMetadata: Array<Record<string, string>>;
  /** Every HTTP request received (card fetches included), oldest first. */
  httpRequests: SeenHttpRequest[];
  /** The extension headers of every JSON-RPC or REST call received, oldest first. */
  extensionHeaders: SeenExtensionHeaders[];
  /** The tenant the SDK resolved for each turn it ran ('' for none), oldest first. */
  turnTenants: string[];
  /** The ids of the tasks the SDK loaded for each turn's `referenceTaskIds` and handed to it, oldest first. */
  referencedTasks: string[][];
  close(): Promise<void>;
}

/** The reply text of a turn, cut after each run of whitespace; the chunks join to `full`. */
export function sdkReply(text: string, turn: number): { chunks: string[]; full: string } {
  const echo = `SDK echo (turn ${turn}): ${text}`;
  const chunks = echo.match(/\S+\s*|\s+/g) ?? [echo];
  if (text.startsWith(SDK_SLOW_PREFIX)) for (let i = 0; i < SDK_SLOW_EXTRA_CHUNKS; i += 1) chunks.push('.');
  return { chunks, full: chunks.join('') };
}

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function promptOf(message: Message): string {
  return message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('\n');
}

interface RunningTurn {
  contextId: string;
  abort: AbortController;
}

class ScriptedExecutor implements AgentExecutor {
  private readonly turnsByContext = new Map<string, number>();
  private readonly running = new Map<string, RunningTurn>();

  readonly turnTenants: string[] = [];
  readonly referencedTasks: string[][] = [];

  constructor(private readonly options: Required<Pick<SdkV1AgentOptions, 'chunkDelayMs' | 'slowChunkDelayMs'>>) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = request;
    this.turnTenants.push(request.context?.tenant ?? '');
    this.referencedTasks.push((request.referenceTasks ?? []).map((task) => task.id));
    const prompt = promptOf(userMessage);
    const turnNumber = (this.turnsByContext.get(contextId) ?? 0) + 1;
    this.turnsByContext.set(contextId, turnNumber);
    const turn: RunningTurn = { contextId, abort: new AbortController() };
    this.running.set(taskId, turn);
    const { signal } = turn.abort;
    const status = (state: TaskState, text?: string) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message: text === undefined ? undefined : agentMessage(text, taskId, contextId),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      });
    try {
      bus.publish(openingTask(taskId, contextId, userMessage));
      bus.publish(status(TaskState.TASK_STATE_WORKING));
      const reply = sdkReply(prompt, turnNumber);
      const slow = prompt.startsWith(SDK_SLOW_PREFIX);
      const delayMs = slow ? this.options.slowChunkDelayMs : this.options.chunkDelayMs;
      for (const [index, chunk] of reply.chunks.entries()) {
        if (delayMs > 0) await sleep(delayMs, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) return;
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: `${taskId}-reply`,
              name: 'reply.txt',
              description: '',
              parts: [textPart(chunk)],
              metadata: undefined,
              extensions: [],
            },
            append: index > 0,
            lastChunk: index === reply.chunks.length - 1,
            metadata: undefined,
          }),
        );
      }
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, reply.full));
    } finally {
      if (this.running.get(taskId) === turn) this.running.delete(taskId);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const turn = this.running.get(taskId);
    if (!turn) return;
    turn.abort.abort();
    this.running.delete(taskId);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: turn.contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage(SDK_CANCELED_TEXT, taskId, turn.contextId),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
  };

  stopAll(): void {
    for (const turn of this.running.values()) turn.abort.abort();
    this.running.clear();
  }
}

function interfacesOf(baseUrl: string, grpcAddress: string | undefined, options: SdkV1AgentOptions): AgentCard['supportedInterfaces'] {
  const tenant = options.tenant ?? '';
  if (grpcAddress) return [{ url: grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant }];
  const rest = { url: `${baseUrl}${SDK_REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant };
  return options.restOnly ? [rest] : [{ url: `${baseUrl}${SDK_JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant }, rest];
}

function buildCard(baseUrl: string, grpcAddress: string | undefined, options: SdkV1AgentOptions): AgentCard {
  const extensions = options.extensions ?? [];
  return {
    name: SDK_AGENT_NAME,
    description: 'A deterministic a2a-js 1.x agent used as the upstream of the a2a-bridge end-to-end tests.',
    supportedInterfaces: interfacesOf(baseUrl, grpcAddress, options),
    provider: { organization: 'a2a-bridge tests', url: 'https://example.com' },
    version: '1.0.0',
    capabilities: {
      streaming: options.streaming ?? true,
      pushNotifications: false,
      extensions: extensions.map((extension) => ({ description: '', required: false, params: undefined, ...extension })),
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'SDK Echo',
        description: 'Echoes the text, chunked into artifact updates; `slow:` streams slowly.',
        tags: ['test'],
        examples: ['hello', 'slow: take your time'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** Start the agent on 127.0.0.1 and a free port. */
export async function startSdkV1Agent(options: SdkV1AgentOptions = {}): Promise<RunningSdkV1Agent> {
  const executor = new ScriptedExecutor({ chunkDelayMs: options.chunkDelayMs ?? 0, slowChunkDelayMs: options.slowChunkDelayMs ?? 60 });
  const grpcMetadata: Array<Record<string, string>> = [];
  const httpRequests: SeenHttpRequest[] = [];
  const extensionHeaders: SeenExtensionHeaders[] = [];
  const declared = new Set((options.extensions ?? []).map((extension) => extension.uri));
  // The SDK echoes what the context marks activated: here, every requested extension the card declares.
  const contextBuilder: ServerCallContextBuilder = (args) => {
    const headers = args.headers as Record<string, string | undefined>;
    extensionHeaders.push({
      ...(headers['a2a-extensions'] !== undefined ? { 'a2a-extensions': headers['a2a-extensions'] } : {}),
      ...(headers['x-a2a-extensions'] !== undefined ? { 'x-a2a-extensions': headers['x-a2a-extensions'] } : {}),
    });
    const context = defaultServerCallContextBuilder(args);
    for (const uri of args.extensions ?? []) if (declared.has(uri)) context.addActivatedExtension(uri);
    return context;
  };
  const { url, server, grpcServer } = await serveSdkAgent(
    (baseUrl, grpcAddress) => buildCard(baseUrl, grpcAddress, options),
    executor,
    { jsonRpc: SDK_JSONRPC_PATH, rest: SDK_REST_PATH },
    {
      grpcOnly: options.grpcOnly ?? false,
      restOnly: options.restOnly ?? false,
      ...(options.mutualTls ? { mutualTls: options.mutualTls } : {}),
      grpcMetadata,
      httpRequests,
      contextBuilder,
      ...(options.signCard ? { signCard: options.signCard } : {}),
    },
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    grpcMetadata,
    httpRequests,
    extensionHeaders,
    turnTenants: executor.turnTenants,
    referencedTasks: executor.referencedTasks,
    close() {
      closing ??= new Promise<void>((resolve) => {
        executor.stopAll();
        grpcServer?.forceShutdown();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Open streams of stopped turns would keep close() waiting: cut them after a moment.
        setTimeout(() => server.closeAllConnections(), 50).unref();
      });
      return closing;
    },
  };
}
