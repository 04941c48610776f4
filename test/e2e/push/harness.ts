/**
 * The push service around a real gateway over the embedded demo agent (real HTTP), plus a callback
 * receiver that can go down and come back on the same port.
 */
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { defaultConfig, type GatewayConfig } from '../../../src/config/schema.js';
import type { AgentPort, CallContext } from '../../../src/core/agent-port.js';
import { createGateway, type Gateway } from '../../../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../../../src/core/task-registry/memory.js';
import type { TaskRegistry } from '../../../src/core/task-registry/types.js';
import type { UnknownTasks } from '../../../src/core/task-scope.js';
import { startDemoAgent, type RunningDemoAgent } from '../../../src/demo-agent/index.js';
import { createLogger } from '../../../src/log.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import type { Message, SendMessageRequest, StreamResponse } from '../../../src/model/index.js';
import type { PushQueueFactoryOptions } from '../../../src/push/index.js';
import { createPushService, type PushService } from '../../../src/push/service.js';
import { createV1Upstream, type V1Upstream } from '../../../src/upstream/v1/client.js';
import { collect } from '../../support/collect.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

/** A callback receiver on 127.0.0.1; `down()` then `up()` keeps its port, so queued jobs still point at it. */
export class Receiver {
  readonly received: Received[] = [];
  private readonly events = new EventEmitter();
  private server: Server | undefined;
  port = 0;
  /** Requests still to answer 503 (a transient failure the queue retries). */
  failNext = 0;
  /** Answers a request instead (its status, when it likes): a test holds a delivery open with it. */
  answer: ((entry: Received) => number | Promise<number>) | undefined;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async up(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const entry = { path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body) as unknown };
        this.received.push(entry);
        if (this.answer) {
          const answered = this.answer(entry);
          this.events.emit('request');
          void Promise.resolve(answered).then((status) => {
            res.statusCode = status;
            res.end('ok');
          });
          return;
        }
        if (this.failNext > 0) {
          this.failNext -= 1;
          res.statusCode = 503;
        }
        res.end('ok');
        this.events.emit('request');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Requests to `path`, oldest first. */
  at(path: string): Received[] {
    return this.received.filter((entry) => entry.path === path);
  }

  /** Resolves once `count` requests reached `path` (event-driven). */
  waitFor(path: string, count: number, timeoutMs = 8_000): Promise<Received[]> {
    if (this.at(path).length >= count) return Promise.resolve(this.at(path));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('request', check);
        reject(new Error(`receiver got ${this.at(path).length} of ${count} requests on ${path}`));
      }, timeoutMs);
      const check = () => {
        if (this.at(path).length < count) return;
        clearTimeout(timer);
        this.events.off('request', check);
        resolve(this.at(path));
      };
      this.events.on('request', check);
    });
  }
}

export const ctx = (principal: string, surface: CallContext['surface'] = 'jsonrpc'): CallContext => ({
  principal,
  signal: new AbortController().signal,
  surface,
});

export const userText = (text: string, refs: { taskId?: string; contextId?: string } = {}): Message => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...refs,
});

export const fastQueue = {
  concurrency: 1,
  blockMs: 50,
  retry: { initialDelayMs: 10, multiplier: 2, maxDelayMs: 40, jitter: 0, maxAttempts: 200 },
};

export interface Harness {
  config: GatewayConfig;
  registry: TaskRegistry;
  gateway: Gateway;
  port: AgentPort;
  service: PushService;
  /** What the upstream was asked to send (inline configs must not appear). */
  forwarded: SendMessageRequest[];
  /** A new service on the same config and registry (a restart of the push side); `stopped` runs in between. */
  restart(stopped?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export interface Environment {
  demo: RunningDemoAgent;
  upstream: V1Upstream;
  dir: string;
  close(): Promise<void>;
}

export async function startEnvironment(): Promise<Environment> {
  const demo = await startDemoAgent();
  const upstream = createV1Upstream({ baseUrl: demo.url, config: defaultConfig().upstream });
  const dir = await mkdtemp(join(tmpdir(), 'a2a-push-e2e-'));
  return {
    demo,
    upstream,
    dir,
    async close() {
      await upstream.close();
      await demo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What a test opened (a harness, a receiver): closed after it. */
export type Closable = { close(): Promise<void> };

/**
 * The environment for a test file: started before its tests and closed after them. What a test pushes to
 * `open` is closed after that test, the last opened first. Read `env()` from inside the tests.
 */
export function environmentSuite(): { env(): Environment; open: Closable[] } {
  let env: Environment | undefined;
  const open: Closable[] = [];
  beforeAll(async () => {
    env = await startEnvironment();
  });
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });
  afterAll(async () => {
    await env?.close();
  });
  return { env: () => env as Environment, open };
}

/** Records what reaches the upstream, so a test can see inline configs were taken off. */
function recording(upstream: AgentPort, forwarded: SendMessageRequest[]): AgentPort {
  return Object.assign(Object.create(upstream) as AgentPort, {
    sendMessage: (request: SendMessageRequest, context: CallContext) => {
      forwarded.push(request);
      return upstream.sendMessage(request, context);
    },
    sendStreamingMessage: (request: SendMessageRequest, context: CallContext) => {
      forwarded.push(request);
      return upstream.sendStreamingMessage(request, context);
    },
  });
}

export interface HarnessOptions {
  profile?: string;
  redis?: Redis;
  subdir?: string;
  followRetry?: { initialDelayMs: number; maxDelayMs: number };
  /** A registry replicas share (Redis); default: one in memory of this harness's own. */
  registry?: TaskRegistry;
  /** The gateway's rule for tasks its registry does not know (default 'agent', as without credentials). */
  unknownTasks?: UnknownTasks;
  /** Over `fastQueue` (one delivery at a time, retries after 10 ms). */
  queue?: PushQueueFactoryOptions;
  /** Default: silent. */
  logger?: Logger;
  /** Awaited each time push waits for a task's events to settle before it reads the task: a test holds a change there. */
  beforePushRead?: (taskId: string) => Promise<void>;
}

/** The gateway as push sees it: its `settled` behind `hook`, when one is given. */
function seenByPush(gateway: Gateway, hook: HarnessOptions['beforePushRead']): Gateway {
  if (!hook) return gateway;
  const settled = async (taskId: string) => {
    await hook(taskId);
    await gateway.settled(taskId);
  };
  return Object.assign(Object.create(gateway) as Gateway, { settled });
}

export async function startHarness(env: Environment, overrides: Record<string, unknown> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const config = defaultConfig({
    'push-notifications': true,
    'push-allow-private': true,
    'persistence-dir': join(env.dir, options.subdir ?? 'state'),
    ...overrides,
  });
  const registry = options.registry ?? createMemoryTaskRegistry({ maxTasks: 1000, idleTtlMs: 60_000, historyLimit: 100 });
  const forwarded: SendMessageRequest[] = [];
  const gateway = createGateway(recording(env.upstream, forwarded), {
    registry,
    upstreamName: env.demo.url,
    ...(options.unknownTasks ? { unknownTasks: options.unknownTasks } : {}),
  });
  const profile = loadMappingProfile(options.profile ?? 'a2a-0.2.5');
  const logger = options.logger ?? createLogger('silent');
  const build = () =>
    createPushService(config, {
      registry,
      logger,
      profile,
      redis: options.redis,
      queue: { ...fastQueue, ...options.queue },
      ...(options.followRetry ? { followRetry: options.followRetry } : {}),
    });

  const harness: Harness = {
    config,
    registry,
    gateway,
    forwarded,
    service: await build(),
    port: gateway,
    async restart(stopped) {
      await harness.service.stop();
      await stopped?.();
      harness.service = await build();
      harness.port = harness.service.decorate(seenByPush(gateway, options.beforePushRead));
      harness.service.start();
    },
    close: () => harness.service.stop(),
  };
  harness.port = harness.service.decorate(seenByPush(gateway, options.beforePushRead));
  harness.service.start();
  return harness;
}

/**
 * What a 1.0 webhook under `push-events: terminal` is pushed for a turn that ended with the status update `update`:
 * the task as recorded, whose status is that update's (src/push/v1-turn-end.ts). A matcher for `toMatchObject`.
 */
export function pushedTurnEnd(update: StreamResponse | undefined): { task: Record<string, unknown> } {
  if (!update || !('statusUpdate' in update)) throw new Error('the turn did not end with a status update');
  const { taskId, contextId, status } = update.statusUpdate;
  return { task: { id: taskId, contextId, status } };
}

/** One streamed turn; returns its events and the task id. */
export async function streamTurn(port: AgentPort, request: SendMessageRequest, context: CallContext) {
  const events = await collect(port.sendStreamingMessage(request, context));
  const first = events.find((event) => 'task' in event || 'statusUpdate' in event);
  const taskId = first && ('task' in first ? first.task.id : 'statusUpdate' in first ? first.statusUpdate.taskId : undefined);
  if (!taskId) throw new Error('the turn produced no task');
  return { events, taskId };
}

/**
 * Everything queued so far has been attempted: a sentinel turn with its own inline config is
 * delivered after it (the test queues deliver one job at a time, in order).
 */
export async function flush(harness: Harness, receiver: Receiver, principal = 'sentinel'): Promise<void> {
  const before = receiver.at('/sentinel').length;
  await streamTurn(
    harness.port,
    { message: userText('sentinel'), configuration: { taskPushNotificationConfig: { url: `${receiver.url}/sentinel` } } },
    ctx(principal),
  );
  await receiver.waitFor('/sentinel', before + 1);
}
