/**
 * A deployment as an operator runs one: two gateway replicas sharing one Redis (a key prefix of each test's
 * own) in front of one real a2a-js 1.x agent, each replica serving JSON-RPC, HTTP+JSON and gRPC, two caller
 * credentials, push notifications queued in Redis. Replica A may be a child process (`a2a-bridge serve`),
 * so a test can stop it gracefully (SIGTERM) or kill it (SIGKILL) mid-turn; replica B runs in this process.
 * Callers are the official a2a-js 1.x client on each binding.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, CallInterceptor } from 'a2a-sdk-1/client';
import { ClientFactory, ClientFactoryOptions } from 'a2a-sdk-1/client';
import { GrpcTransportFactory } from 'a2a-sdk-1/client/grpc';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { killChildren } from '../../support/kill-children.js';
import { deleteRedisKeys, REDIS_URL } from '../../support/redis.js';
import { serveCli, type ServingCli } from '../../support/run-cli.js';
import { cardResolver, connect } from '../../support/sdk-v1-client.js';
import { startDeployAgent, type RunningDeployAgent } from './deploy-agent.js';

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
export const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** The two callers' bearer tokens: each a principal of its own. */
export const ALICE = 'alice-token';
export const BOB = 'bob-token';

export interface Replica {
  url: string;
}

export interface ChildReplica extends Replica {
  child: ChildProcess;
  /** SIGTERM (a rollout's graceful stop, which drains) or SIGKILL, resolved once the process exited. */
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export interface Deployment<A extends Replica = Replica> {
  agent: RunningDeployAgent;
  a: A;
  b: TestGateway;
  close(): Promise<void>;
}

export interface DeploymentOptions {
  /** Settings on top of the shared ones (push, lane lease, ...), on both replicas. */
  settings?: Record<string, unknown>;
  /** How the replicas call the agent (JSON-RPC by default; GRPC serves the agent over gRPC alone). */
  upstream?: Binding;
}

/** The agent, served and called over `binding`. */
async function agentOver(binding: Binding = 'JSONRPC'): Promise<{ agent: RunningDeployAgent; upstream: Record<string, unknown> }> {
  const agent = await startDeployAgent({ grpc: binding === 'GRPC' });
  return { agent, upstream: { url: agent.url, 'protocol-binding': binding } };
}

/** What both replicas share: the agent, Redis and its prefix, the push queue and key ring, the callers' tokens. */
function sharedSettings(upstream: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const prefix = `test-replicas-${process.pid}-${randomUUID().slice(0, 8)}:`;
  return {
    upstream,
    auth: { tokens: [ALICE, BOB] },
    store: 'redis',
    'redis-url': REDIS_URL,
    'redis-prefix': prefix,
    grpc: { port: 0 },
    'push-notifications': true,
    'push-allow-private': true,
    'push-keys': [`k1:${randomBytes(32).toString('base64')}`],
    'push-queue': 'redis-streams',
    'push-redis-url': REDIS_URL,
    'push-stream': `${prefix}push`,
    'push-retry-key': `${prefix}push:retry`,
    'push-dead-stream': `${prefix}push:dead`,
    'push-consumer-group': `${prefix}group`,
    'push-lease-timeout-ms': 1_000,
    ...extra,
  };
}

/** Both replicas in this process. */
export async function startDeployment(options: DeploymentOptions = {}): Promise<Deployment<TestGateway>> {
  const { agent, upstream } = await agentOver(options.upstream);
  const dir = await mkdtemp(join(tmpdir(), 'a2a-replicas-'));
  const settings = sharedSettings(upstream, options.settings ?? {});
  const started: TestGateway[] = [];
  const close = async () => {
    for (const gateway of started.reverse()) await gateway.close();
    await agent.close();
    await deleteRedisKeys(settings['redis-prefix'] as string);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const name of ['a', 'b']) started.push(await startTestGateway({ ...settings, 'persistence-dir': join(dir, name) }));
    return { agent, a: started[0]!, b: started[1]!, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Replica A as `a2a-bridge serve` in a child process (to be stopped or killed), B in this process. */
export async function startDeploymentWithChild(options: DeploymentOptions = {}): Promise<Deployment<ChildReplica>> {
  const { agent, upstream } = await agentOver(options.upstream);
  const dir = await mkdtemp(join(tmpdir(), 'a2a-replicas-'));
  const settings = sharedSettings(upstream, options.settings ?? {});
  const children: ChildProcess[] = [];
  let b: TestGateway | undefined;
  const close = async () => {
    await killChildren(children);
    await b?.close();
    await agent.close();
    await deleteRedisKeys(settings['redis-prefix'] as string);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const file = join(dir, 'replica-a.json');
    await writeFile(file, JSON.stringify({ ...settings, port: 0, 'log-format': 'json', 'persistence-dir': join(dir, 'a') }));
    const [served, gateway] = await Promise.all([
      serveCli(['--config', file], { track: children }),
      startTestGateway({ ...settings, 'persistence-dir': join(dir, 'b') }).then((started) => (b = started)),
    ]);
    return { agent, a: childReplica(served), b: gateway, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function childReplica(served: ServingCli): ChildReplica {
  return {
    url: served.url,
    child: served.child,
    async stop(signal) {
      if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill(signal);
      await served.exited;
    },
  };
}

/** Adds the caller's bearer token to every call's service parameters: gRPC metadata, or HTTP headers. */
const bearer = (token: string): CallInterceptor => ({
  before: async (args) => {
    args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${token}` } };
  },
  after: async () => undefined,
});

/** The official a2a-js 1.x client of `replica` on `binding`, calling as the holder of `token`. */
export async function sdkClient(replica: Replica, binding: Binding, token = ALICE): Promise<Client> {
  if (binding !== 'GRPC') return (await connect(replica.url, binding, { token })).client;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
      cardResolver: cardResolver([], { token }),
      clientConfig: { interceptors: [bearer(token)] },
    }),
  );
  return factory.createFromUrl(replica.url);
}

/** The same client of the agent itself, on the binding the agent serves: what it says without the gateway. */
export async function agentClient(agent: RunningDeployAgent, binding: Binding): Promise<Client> {
  if (binding !== 'GRPC') return (await connect(agent.url, binding)).client;
  const options = { transports: [new GrpcTransportFactory()], preferredTransports: ['GRPC'], cardResolver: cardResolver([]) };
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, options)).createFromUrl(agent.url);
}

/** The bindings the replicas may call the agent over. */
export const UPSTREAMS: Binding[] = BINDINGS;
