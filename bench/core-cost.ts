/**
 * What the layers of the gateway cost by themselves, in process, without sockets: CPU per blocking
 * SendMessage and per streamed event over a stub upstream, (1) the stub alone, (2) through the core
 * (createGateway: task scope, turn ordering, fan-out, the registry, redaction), and for a blocking call
 * (3) through the Hono app as `startGateway` composes it (request log, path guard, metrics, auth, the
 * JSON-RPC surface and its call pipeline) with `app.request`: a web Request in, the JSON text out. What a
 * whole hop costs beyond (3) is the node:http adapter, the sockets and the upstream client.
 *
 *   node --import tsx bench/core-cost.ts [--rounds 5] [--calls 30000] [--events 20000]
 */
import { parseArgs } from 'node:util';
import type { AgentPort, CallContext } from '../src/core/agent-port.js';
import { defaultConfig } from '../src/config/schema.js';
import type { CardSource } from '../src/core/card-source.js';
import { createGateway } from '../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../src/core/task-registry/memory.js';
import { createGatewayApp } from '../src/gateway-app.js';
import { createLogger } from '../src/log.js';
import { createObservability } from '../src/observability/index.js';
import { createGatewayMetrics } from '../src/observability/metrics.js';
import type { SendMessageRequest, StreamResponse } from '../src/model/index.js';
import { median, round } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    calls: { type: 'string', default: '30000' },
    events: { type: 'string', default: '20000' },
  },
});

let sequence = 0;
/** The answers a fast agent gives, as fresh objects (the client parses a new one each time). */
const stub = {
  async sendMessage(request: SendMessageRequest) {
    const n = ++sequence;
    return {
      task: {
        id: `t${n}`,
        contextId: `c${n}`,
        status: { state: 'TASK_STATE_INPUT_REQUIRED' as const, timestamp: new Date().toISOString() },
        artifacts: [{ artifactId: 'a', parts: [{ text: 'a short reply from the agent' }] }],
        history: [request.message],
      },
    };
  },
  async *sendStreamingMessage(): AsyncGenerator<StreamResponse> {
    const n = ++sequence;
    const ids = { taskId: `t${n}`, contextId: `c${n}` };
    yield { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' } } };
    for (let i = 0; i < Number(values.events); i++) {
      const message = { messageId: `m${n}`, role: 'ROLE_AGENT' as const, parts: [{ text: `chunk ${i} of the reply` }] };
      yield { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message } } };
    }
    yield { statusUpdate: { ...ids, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } };
  },
} as unknown as AgentPort;

const ctx = (): CallContext => ({ principal: 'bench', signal: new AbortController().signal, surface: 'jsonrpc' });
const request = (): SendMessageRequest => ({ message: { messageId: `m-${++sequence}`, role: 'ROLE_USER', parts: [{ text: 'make a vpc' }] } });

async function cpuPer(units: number, work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / units;
}

const blocking = (port: AgentPort, calls: number) =>
  cpuPer(calls, async () => {
    for (let i = 0; i < calls; i++) await port.sendMessage(request(), ctx());
  });

const streamed = (port: AgentPort, events: number) =>
  cpuPer(events, async () => {
    for await (const _event of port.sendStreamingMessage(request(), ctx())) {
      // Drained as a surface would, one event at a time.
    }
  });

const card = {
  name: 'bench agent',
  description: 'stub',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://agent.invalid/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};
const cards: CardSource = {
  current: () => ({ card, fetchedAt: new Date() }),
  upstreamReachable: () => true,
  onChange: () => undefined,
};

/** The app over `port` as startGateway composes it (metrics on, the default config), called without sockets. */
function appOver(port: AgentPort, registry: ReturnType<typeof createMemoryTaskRegistry>) {
  const config = defaultConfig({ upstream: { url: 'http://agent.invalid/' } });
  const observability = createObservability(config, { metrics: createGatewayMetrics() });
  const app = createGatewayApp({ config, port: observability.port(port), cards, registry, logger: createLogger('silent'), observability });
  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  return (calls: number) =>
    cpuPer(calls, async () => {
      for (let i = 0; i < calls; i++) {
        const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: request() });
        const response = await app.request('http://gateway.test/', { method: 'POST', headers, body });
        await response.text();
      }
    });
}

async function main(): Promise<void> {
  const registry = createMemoryTaskRegistry({ maxTasks: 100_000, idleTtlMs: 60_000, historyLimit: 200 });
  const core = createGateway(stub, { registry, upstreamName: 'bench' });
  const throughApp = appOver(core, registry);
  const calls = Number(values.calls);
  const events = Number(values.events) + 2;
  const names = ['stubCall', 'coreCall', 'appCall', 'stubEvent', 'coreEvent'] as const;
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<(typeof names)[number], number[]>;
  // One warm-up round, not counted.
  for (let r = 0; r <= Number(values.rounds); r++) {
    const measured = [
      await blocking(stub, calls),
      await blocking(core, calls),
      await throughApp(calls),
      await streamed(stub, events),
      await streamed(core, events),
    ];
    if (r > 0) names.forEach((name, i) => samples[name].push(measured[i]!));
  }
  const m = (name: (typeof names)[number]) => round(median(samples[name]));
  const own = (outer: (typeof names)[number], inner: (typeof names)[number]) => round(median(samples[outer]) - median(samples[inner]));
  console.log('| CPU µs per | stub alone | through the core (the core’s own) | through the app (the app’s own) |');
  console.log('|---|---|---|---|');
  console.log(
    `| blocking SendMessage | ${m('stubCall')} | ${m('coreCall')} (${own('coreCall', 'stubCall')}) | ${m('appCall')} (${own('appCall', 'coreCall')}) |`,
  );
  console.log(`| streamed event | ${m('stubEvent')} | ${m('coreEvent')} (${own('coreEvent', 'stubEvent')}) | — |`);
}

await main();
