import type {
  AgentCard,
  CancelTaskRequest,
  CreateTaskPushNotificationConfigRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../model/index.js';
import type { TurnVerdict } from './turn-verdict.js';

/** Who is calling and how long they care: passed from a surface through the core to an upstream. */
export interface CallContext {
  /** Owner scope of tasks: the surface and a digest of the caller's credential (see surfaces/shared/principal.ts). */
  principal: string;
  /**
   * The configured name of the caller's credential, when it has one: for logs, metrics and the cap on
   * turns in flight (turn-limits.ts), which counts a name's credentials together. Never decides ownership.
   */
  client?: string;
  /** Aborted when the caller goes away or a timeout fires; upstream calls must honour it. */
  signal: AbortSignal;
  /** Extension URIs the caller requested (A2A-Extensions / X-A2A-Extensions). */
  extensions?: string[];
  /** Told the extension URIs the upstream's response header reports as activated, once per upstream response. */
  onActivatedExtensions?: (uris: string[]) => void;
  /** Which surface the call came through; used for logs and push payload versions. */
  surface?: 'jsonrpc' | 'rest' | 'grpc' | 'v025';
  /**
   * The language the caller's person writes in (`en`, `zh`, `ja`), when the surface knows it (the 0.2.5
   * facade's turn language): an agent that can be asked to write in it is (upstream/iac-code/preferred-language.ts).
   */
  language?: string;
  /**
   * Called by a streaming upstream call once the agent has accepted it (a 2xx SSE response), before
   * its first event: the surface may then commit its own stream and keep it alive while the agent thinks.
   */
  onAccepted?: () => void;
  /**
   * Called once the request of a call that carries the caller's message (sendMessage, sendStreamingMessage)
   * has left for the agent: over HTTP once the connection has taken its body, so never while the request waits
   * for one of the pool's connections or connects, nor when the agent refuses the connection. gRPC tells no such
   * moment: there the call counts as sent once it is made, unless grpc-js says no connection took it
   * (upstream/v1/grpc-errors.ts grpcCallNeverSent).
   * The context's other calls (an admission's GetTask, a recovery's reads) never call it. Set by the 0.2.5
   * facade's turns (surfaces/v025/recovery/cut-turns.ts: a turn the shutdown cut after it may be at work at the agent).
   */
  onMessageSent?: () => void;
  /**
   * The W3C trace context (`traceparent`, `tracestate`) every upstream request of this call carries:
   * the caller's, or the gateway span's when traces are recorded. Carried here rather than in an
   * AsyncLocalStorage, whose promise hooks cost every request a share of its CPU.
   */
  traceHeaders?: Readonly<Record<string, string>>;
  /** Sums the time this call waited on the upstream, for the metrics' gateway-own share. */
  timing?: CallTiming;
  /**
   * The gateway itself vouches that `principal` owns the task this call names: a push follow, started by
   * that caller's own call and journaled with it; the rest of a facade turn a shutdown cut, read by the
   * principal whose note names it (v025/recovery/cut-turns.ts). Such a call reaches a task the registry has forgotten
   * (a restart with `store: memory`), where a caller's would be not found (task-scope.ts).
   */
  ownerVouched?: boolean;
  /**
   * Wraps the rest of a turn whose caller was answered with its first event (`returnImmediately` to an agent whose
   * turns are streamed, upstream/v025/immediate.ts): the upstream reads what this gives for the rest, to its end,
   * however it ends. Each decorator on the way down adds its part (core/read-on.ts), as it would to the turn's
   * stream: redacted, recorded, published, the context's lane held to the end, so the turn ends as a streamed one.
   */
  readOn?: (rest: AsyncIterable<StreamResponse>) => AsyncIterable<StreamResponse>;
  /**
   * The surface may yet drop the turn this send begins, as refused before the agent did anything, and send the
   * caller's message again (the 0.2.5 facade's gone-task.ts): push keeps the send's inline config, and notifies the
   * turn's events, only once the verdict says the turn went on, so a webhook is never pushed a dropped attempt's task.
   */
  turnVerdict?: TurnVerdict;
  /**
   * The task whose push configs this send's task takes on, those `principal` set on it: the 0.2.5 facade aimed the
   * caller's turn at that task, the agent no longer had it, and the caller's message went again as a new task
   * (gone-task.ts). Stored for the new task as an inline config is, before its events are notified.
   */
  pushConfigsOf?: string;
  /**
   * The task the call's message continues, as a decorator of the core read it for those below, which build on it
   * rather than read it again: as the message entered, its queued writes done, with its scope (repeated-messages.ts
   * for task-scope.ts, the scope it was read with held by the handing context alone; task-scope.ts for admission.ts);
   * once the context's lane was taken for the turn (admission.ts, for stream-opening.ts, on the streams it lets in;
   * a blocking call's goes on below unread, no layer there reading it). Set or taken away only by the core
   * (followed-record.ts), never a surface; what reads it checks it is the message's task.
   */
  followedRecord?: Task;
}

export interface CallTiming {
  upstreamSeconds: number;
}

/**
 * Everything an A2A 1.0 agent offers, in the internal (1.0) model. Upstream clients implement it,
 * the core decorates it (registry, turn ordering, push), surfaces consume it. Streams are async
 * iterables: the consumer pulls, and breaking out of the loop (or aborting ctx.signal) must cancel
 * the upstream call.
 */
export interface AgentPort {
  sendMessage(request: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse>;
  sendStreamingMessage(request: SendMessageRequest, ctx: CallContext): AsyncIterable<StreamResponse>;
  getTask(request: GetTaskRequest, ctx: CallContext): Promise<Task>;
  listTasks(request: ListTasksRequest, ctx: CallContext): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest, ctx: CallContext): Promise<Task>;
  subscribeToTask(request: SubscribeToTaskRequest, ctx: CallContext): AsyncIterable<StreamResponse>;
  createTaskPushNotificationConfig(request: CreateTaskPushNotificationConfigRequest, ctx: CallContext): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(request: GetTaskPushNotificationConfigRequest, ctx: CallContext): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    ctx: CallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(request: DeleteTaskPushNotificationConfigRequest, ctx: CallContext): Promise<void>;
  getExtendedAgentCard(ctx: CallContext): Promise<AgentCard>;
}

/**
 * What the core (the gateway) offers besides its port: its registry writes trail the events it yields,
 * and `settled` resolves once the registry holds every event relayed for the task so far. Whatever
 * reads the registry right after an event (push snapshots, push config methods) waits for it first.
 */
export interface Settling {
  settled(taskId: string): Promise<void>;
}

/** An upstream agent: the port plus what the gateway needs to know about it. */
export interface Upstream extends AgentPort {
  /** Fetch the agent's card (1.0 model) from the network. */
  fetchCard(signal?: AbortSignal): Promise<AgentCard>;
  /** Release pooled connections. */
  close(): Promise<void>;
}
