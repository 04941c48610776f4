/** Test doubles for the gateway: an upstream AgentPort whose streams the test feeds by hand. */
import type { AgentPort, CallContext } from '../../src/core/agent-port.js';
import type { Message, SendMessageRequest, StreamResponse, Task, TaskState } from '../../src/model/index.js';

/** An upstream stream the test controls: nothing is produced until pushed. */
export class Feed {
  produced = 0;
  /** The generator's finally ran (it was returned or finished). */
  finished = false;
  private readonly items: Array<{ event?: StreamResponse; end?: true; error?: Error }> = [];
  private wake: (() => void) | undefined;

  push(...events: StreamResponse[]): this {
    for (const event of events) this.items.push({ event });
    this.wake?.();
    return this;
  }
  end(): void {
    this.items.push({ end: true });
    this.wake?.();
  }
  fail(error: Error): void {
    this.items.push({ error });
    this.wake?.();
  }

  async *stream(): AsyncGenerator<StreamResponse> {
    try {
      for (;;) {
        while (this.items.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
        const item = this.items.shift()!;
        if (item.end) return;
        if (item.error) throw item.error;
        this.produced++;
        yield item.event!;
      }
    } finally {
      this.finished = true;
    }
  }
}

export type StubUpstream = AgentPort & { calls: string[] };

/** Every method records its call; those not overridden fail the test loudly. */
export function stubUpstream(overrides: Partial<AgentPort>): StubUpstream {
  const calls: string[] = [];
  const methods = [
    'sendMessage',
    'sendStreamingMessage',
    'getTask',
    'listTasks',
    'cancelTask',
    'subscribeToTask',
    'createTaskPushNotificationConfig',
    'getTaskPushNotificationConfig',
    'listTaskPushNotificationConfigs',
    'deleteTaskPushNotificationConfig',
    'getExtendedAgentCard',
  ] as const;
  const port: Record<string, unknown> = { calls };
  for (const name of methods) {
    const impl = overrides[name] as ((...args: unknown[]) => unknown) | undefined;
    port[name] = (...args: unknown[]) => {
      calls.push(name);
      if (!impl) throw new Error(`unexpected upstream call: ${name}`);
      return impl(...args);
    };
  }
  return port as unknown as StubUpstream;
}

export const ctxOf = (principal: string): CallContext => ({ principal, signal: new AbortController().signal });

export function userMessage(options: { contextId?: string; taskId?: string; text?: string; metadata?: Record<string, unknown> } = {}): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: 'ROLE_USER',
    parts: [{ text: options.text ?? 'make vpc' }],
    ...(options.contextId ? { contextId: options.contextId } : {}),
    ...(options.taskId ? { taskId: options.taskId } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
}

export const taskFrame = (taskId: string, contextId: string, history: Message[] = []): StreamResponse => ({
  task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history },
});

export const statusFrame = (taskId: string, contextId: string, state: TaskState, text?: string): StreamResponse => ({
  statusUpdate: {
    taskId,
    contextId,
    status: {
      state,
      timestamp: new Date().toISOString(),
      ...(text ? { message: { messageId: `${taskId}-message`, role: 'ROLE_AGENT' as const, taskId, contextId, parts: [{ text }] } } : {}),
    },
    metadata: { iac_code: { iacCodeSessionId: 'S', usage: { totalTokens: 3 } } },
  },
});

export const finishedTask = (taskId: string, contextId: string, state: TaskState = 'TASK_STATE_INPUT_REQUIRED'): Task => ({
  id: taskId,
  contextId,
  status: { state, timestamp: new Date().toISOString() },
});

/** What the agent was sent, through `wrap` over a stub that records it. */
export function recordingUpstream(wrap: (inner: AgentPort) => AgentPort) {
  const sent: SendMessageRequest[] = [];
  const inner = stubUpstream({
    sendMessage: async (request) => {
      sent.push(request);
      return { task: finishedTask('t-1', request.message.contextId ?? 'c') };
    },
    async *sendStreamingMessage(request) {
      sent.push(request);
      yield { task: finishedTask('t-1', request.message.contextId ?? 'c') };
    },
  });
  return { port: wrap(inner), sent };
}
