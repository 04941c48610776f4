/** Test doubles for the surfaces: a recording AgentPort, a fixed CardSource and the composed app. */
import { Hono, type MiddlewareHandler } from 'hono';
import { defaultConfig, type GatewayConfig } from '../../src/config/schema.js';
import type { AgentPort, CallContext } from '../../src/core/agent-port.js';
import type { CardSnapshot, CardSource } from '../../src/core/card-source.js';
import type { AgentCard, Message, StreamResponse, Task, TaskPushNotificationConfig } from '../../src/model/index.js';
import { mountHealth } from '../../src/surfaces/health.js';
import { requireCredentials } from '../../src/surfaces/shared/auth.js';
import type { GatewayEnv, RequestLogFields } from '../../src/surfaces/shared/env.js';
import { jsonRpcEndpoint } from '../../src/surfaces/shared/jsonrpc-endpoint.js';
import { createV1Dialect, mountV1Surface } from '../../src/surfaces/v1/index.js';
import { v1SurfaceOptions } from '../../src/surface-options.js';

export const task = (id = 'task-1', overrides: Partial<Task> = {}): Task => ({
  id,
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-01-01T00:00:00.000Z' },
  ...overrides,
});

export const agentMessage = (text: string): Message => ({
  messageId: 'm-agent',
  role: 'ROLE_AGENT',
  parts: [{ text }],
  contextId: 'ctx-1',
});

export const userMessage = (overrides: Partial<Message> = {}): Message => ({
  messageId: 'm-1',
  role: 'ROLE_USER',
  parts: [{ text: 'hello' }],
  ...overrides,
});

export const statusUpdate = (state: Task['status']['state'], text?: string): StreamResponse => ({
  statusUpdate: {
    taskId: 'task-1',
    contextId: 'ctx-1',
    status: text ? { state, message: agentMessage(text) } : { state },
  },
});

export const pushConfig = (overrides: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig => ({
  taskId: 'task-1',
  id: 'hook-1',
  url: 'https://hooks.example.com/a2a',
  ...overrides,
});

/** An iac-code-like upstream card: upstream URLs, schemes, skill requirements, a signature and legacy fields. */
export function upstreamCard(overrides: Record<string, unknown> = {}): AgentCard {
  return {
    name: 'iac-code',
    description: 'Upstream agent',
    supportedInterfaces: [
      { url: 'http://10.0.0.5:41242/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://10.0.0.5:41242', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'grpc://10.0.0.5:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    provider: { organization: 'iac-code' },
    version: '0.13.1',
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    securitySchemes: { upstreamKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Upstream-Key' } } },
    securityRequirements: [{ schemes: { upstreamKey: { list: [''] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's1', name: 'Skill', description: 'd', tags: ['t'], securityRequirements: [{ schemes: { upstreamKey: {} } }] }],
    signatures: [{ protected: 'eyJhbGciOiJIUzI1NiJ9', signature: 'sig', header: {} }],
    url: 'http://10.0.0.5:41242/',
    preferredTransport: 'JSONRPC',
    protocolVersion: '1.0',
    additionalInterfaces: [{ url: 'http://10.0.0.5:41242', transport: 'HTTP+JSON' }],
    ...overrides,
  };
}

export interface Call {
  method: keyof AgentPort;
  request: unknown;
  ctx: CallContext;
}

/** Records every call; answers with canned 1.0 objects unless a test overrides a method. */
export class StubPort implements AgentPort {
  readonly calls: Call[] = [];
  constructor(private readonly overrides: Partial<AgentPort> = {}) {}

  private record(method: keyof AgentPort, request: unknown, ctx: CallContext): void {
    this.calls.push({ method, request, ctx });
  }
  last(): Call {
    const call = this.calls.at(-1);
    if (!call) throw new Error('no call recorded');
    return call;
  }

  sendMessage: AgentPort['sendMessage'] = async (request, ctx) => {
    this.record('sendMessage', request, ctx);
    return this.overrides.sendMessage ? this.overrides.sendMessage(request, ctx) : { task: task() };
  };
  sendStreamingMessage: AgentPort['sendStreamingMessage'] = (request, ctx) => {
    this.record('sendStreamingMessage', request, ctx);
    return this.overrides.sendStreamingMessage
      ? this.overrides.sendStreamingMessage(request, ctx)
      : fromArray([{ task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) }, statusUpdate('TASK_STATE_INPUT_REQUIRED', 'done')]);
  };
  getTask: AgentPort['getTask'] = async (request, ctx) => {
    this.record('getTask', request, ctx);
    return this.overrides.getTask ? this.overrides.getTask(request, ctx) : task(request.id);
  };
  listTasks: AgentPort['listTasks'] = async (request, ctx) => {
    this.record('listTasks', request, ctx);
    return this.overrides.listTasks ? this.overrides.listTasks(request, ctx) : { tasks: [task()], nextPageToken: '', pageSize: 50, totalSize: 1 };
  };
  cancelTask: AgentPort['cancelTask'] = async (request, ctx) => {
    this.record('cancelTask', request, ctx);
    return this.overrides.cancelTask ? this.overrides.cancelTask(request, ctx) : task(request.id, { status: { state: 'TASK_STATE_CANCELED' } });
  };
  subscribeToTask: AgentPort['subscribeToTask'] = (request, ctx) => {
    this.record('subscribeToTask', request, ctx);
    return this.overrides.subscribeToTask
      ? this.overrides.subscribeToTask(request, ctx)
      : fromArray([{ task: task(request.id, { status: { state: 'TASK_STATE_WORKING' } }) }, statusUpdate('TASK_STATE_INPUT_REQUIRED')]);
  };
  createTaskPushNotificationConfig: AgentPort['createTaskPushNotificationConfig'] = async (request, ctx) => {
    this.record('createTaskPushNotificationConfig', request, ctx);
    return this.overrides.createTaskPushNotificationConfig
      ? this.overrides.createTaskPushNotificationConfig(request, ctx)
      : { ...request, id: request.id ?? request.taskId };
  };
  getTaskPushNotificationConfig: AgentPort['getTaskPushNotificationConfig'] = async (request, ctx) => {
    this.record('getTaskPushNotificationConfig', request, ctx);
    return pushConfig({ taskId: request.taskId, id: request.id });
  };
  listTaskPushNotificationConfigs: AgentPort['listTaskPushNotificationConfigs'] = async (request, ctx) => {
    this.record('listTaskPushNotificationConfigs', request, ctx);
    return { configs: [pushConfig({ taskId: request.taskId })] };
  };
  deleteTaskPushNotificationConfig: AgentPort['deleteTaskPushNotificationConfig'] = async (request, ctx) => {
    this.record('deleteTaskPushNotificationConfig', request, ctx);
    if (this.overrides.deleteTaskPushNotificationConfig) await this.overrides.deleteTaskPushNotificationConfig(request, ctx);
  };
  getExtendedAgentCard: AgentPort['getExtendedAgentCard'] = async (ctx) => {
    this.record('getExtendedAgentCard', undefined, ctx);
    return this.overrides.getExtendedAgentCard
      ? this.overrides.getExtendedAgentCard(ctx)
      : upstreamCard({ skills: [{ id: 'extra', name: 'Extra', description: 'd', tags: ['t'] }] });
  };
}

export async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

export function fixedCards(card: AgentCard | undefined = upstreamCard(), reachable = true): CardSource & { snapshot?: CardSnapshot } {
  const snapshot = card ? { card, fetchedAt: new Date('2026-03-01T10:00:00.000Z') } : undefined;
  return { snapshot, current: () => snapshot, upstreamReachable: () => reachable, onChange: () => undefined };
}

export interface TestApp {
  app: Hono<GatewayEnv>;
  port: StubPort;
  config: GatewayConfig;
  /** The log fields of the most recent request. */
  log(): RequestLogFields;
}

/** Composes the surfaces the way the gateway app does: health, JSON-RPC `POST /` behind auth, the 1.0 surface. */
export function buildApp(options: { port?: StubPort; config?: Record<string, unknown>; cards?: CardSource } = {}): TestApp {
  const port = options.port ?? new StubPort();
  const config = defaultConfig(options.config);
  const cards = options.cards ?? fixedCards();
  const app = new Hono<GatewayEnv>();
  let fields: RequestLogFields = {};
  app.use('*', async (c, next) => {
    fields = {};
    c.set('logFields', fields);
    await next();
  });
  mountHealth(app, cards);
  const deps = { port, cards, options: v1SurfaceOptions(config) };
  app.post('/', requireCredentials(config.auth), jsonRpcEndpoint([createV1Dialect(deps)], { maxBodyBytes: config['max-body-bytes'] }));
  mountV1Surface(app, deps);
  return { app, port, config, log: () => fields };
}

/**
 * One route behind an auth gate that answers what the gate handed the request: its principal, its
 * client name (null when unnamed) and the fields noted for its log line. The gate's refusal is
 * answered as `{ status, body: text }`.
 */
export function behindGate(gate: MiddlewareHandler<GatewayEnv>) {
  const app = new Hono<GatewayEnv>();
  app.use(async (c, next) => {
    c.set('logFields', {});
    await next();
  });
  app.get('/who', gate, (c) => c.json({ principal: c.get('principal'), client: c.get('client') ?? null, logged: c.get('logFields') }));
  return async (headers: Record<string, string> = {}): Promise<{ status: number; body: any }> => {
    const response = await app.request('/who', { headers });
    return { status: response.status, body: response.status === 200 ? await response.json() : await response.text() };
  };
}

export const V1 = { 'A2A-Version': '1.0', 'content-type': 'application/json' } as const;

/** POST / with a JSON-RPC request; returns status, headers and the parsed body. */
export async function rpc(
  app: Hono<GatewayEnv>,
  method: string,
  params?: unknown,
  options: { headers?: Record<string, string>; id?: unknown } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await app.request('/', {
    method: 'POST',
    headers: { ...V1, ...options.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 'r1', method, ...(params === undefined ? {} : { params }) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Parses an SSE body into frames (event name and data), ignoring comments. */
export function parseSse(text: string): Array<{ event?: string; data: string }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return event ? { event, data } : { data };
    })
    .filter((frame) => frame.data !== '' || frame.event);
}
