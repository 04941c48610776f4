/**
 * What the layers of the gateway cost by themselves, in process, without sockets: CPU per blocking
 * SendMessage and per streamed event over a stub upstream, (1) the stub alone, (2) through the core
 * (createGateway: task scope, turn ordering, fan-out, the registry, redaction), and for a blocking call
 * (3) through the Hono app as `startGateway` composes it (request log, path guard, metrics, auth, the
 * JSON-RPC surface and its call pipeline) with `app.request`: a web Request in, the JSON text out. What a
 * whole hop costs beyond (3) is the node:http adapter, the sockets and the upstream client.
 *
 *   node --import tsx bench/core-cost.ts [--rounds 5] [--calls 30000] [--events 20000] [--only facade|blocking|short-stream]
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
    /** Run only one row, e.g. under --cpu-prof: `facade` or `blocking` through the app, or `short-stream` through the core. */
    only: { type: 'string' },
  },
});

let sequence = 0;
const FACADE_TEXT = 'hi from bailian';
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
  async *sendStreamingMessage(request: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const n = ++sequence;
    const ids = { taskId: `t${n}`, contextId: `c${n}` };
    // A facade send asks for the fast agent's reply (three chunks); a streamed call for --events.
    const chunks = request.message.parts[0]?.text === FACADE_TEXT ? 3 : Number(values.events);
    yield { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' } } };
    for (let i = 0; i < chunks; i++) {
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

/** A whole short streamed call per unit (the three-chunk reply a facade send reads): its set-up and end included. */
const shortStreams = (port: AgentPort, calls: number) =>
  cpuPer(calls, async () => {
    for (let i = 0; i < calls; i++) {
      const message = { messageId: `m-${++sequence}`, role: 'ROLE_USER' as const, parts: [{ text: FACADE_TEXT }] };
      for await (const _event of port.sendStreamingMessage({ message }, ctx())) {
        // Drained as a surface would.
      }
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
  const call = (calls: number, bodyOf: (i: number) => string, callHeaders: Record<string, string>) =>
    cpuPer(calls, async () => {
      for (let i = 0; i < calls; i++) {
        const response = await app.request('http://gateway.test/', { method: 'POST', headers: callHeaders, body: bodyOf(i) });
        await response.text();
      }
    });
  return {
    blocking: (calls: number) => call(calls, (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: request() }), headers),
    /** A 0.2.5 message/send, read through the stub's three-chunk stream and folded into one Task. */
    facade: (calls: number) =>
      call(
        calls,
        (i) =>
          JSON.stringify({
            jsonrpc: '2.0',
            id: i,
            method: 'message/send',
            params: { message: { kind: 'message', messageId: `m-${++sequence}`, role: 'user', parts: [{ kind: 'text', text: FACADE_TEXT }] } },
          }),
        { 'content-type': 'application/json' },
      ),
  };
}

async function main(): Promise<void> {
  const registry = createMemoryTaskRegistry({ maxTasks: 100_000, idleTtlMs: 60_000, historyLimit: 200 });
  const core = createGateway(stub, { registry, upstreamName: 'bench' });
  const throughApp = appOver(core, registry);
  const calls = Number(values.calls);
  const events = Number(values.events) + 2;
  if (values.only === 'short-stream') {
    const withCore: number[] = [];
    const stubOnly: number[] = [];
    for (let r = 0; r <= Number(values.rounds); r++) {
      const a = await shortStreams(core, calls);
      const b = await shortStreams(stub, calls);
      if (r === 0) continue;
      withCore.push(a);
      stubOnly.push(b);
    }
    console.log(`short streamed call through the core: ${round(median(withCore))} µs CPU; the stub alone: ${round(median(stubOnly))} µs`);
    return;
  }
  const only = values.only === 'facade' || values.only === 'blocking' ? values.only : undefined;
  if (only) {
    // Rounds alternate with the same app straight over the stub, in this process: the core's layers
    // on this path are the difference (a shared host moves whole runs by a third).
    const bare = appOver(stub, registry);
    const withCore: number[] = [];
    const withoutCore: number[] = [];
    for (let r = 0; r <= Number(values.rounds); r++) {
      const a = await throughApp[only](calls);
      const b = await bare[only](calls);
      if (r === 0) continue;
      withCore.push(a);
      withoutCore.push(b);
    }
    console.log(`${only} through the app: ${round(median(withCore))} µs CPU; over the stub without the core: ${round(median(withoutCore))} µs`);
    return;
  }
  const names = ['stubCall', 'coreCall', 'appCall', 'facadeCall', 'stubEvent', 'coreEvent'] as const;
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<(typeof names)[number], number[]>;
  // One warm-up round, not counted.
  for (let r = 0; r <= Number(values.rounds); r++) {
    const measured = [
      await blocking(stub, calls),
      await blocking(core, calls),
      await throughApp.blocking(calls),
      await throughApp.facade(calls),
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
  console.log(`| facade message/send (3 chunks) | — | — | ${m('facadeCall')} (${own('facadeCall', 'appCall')} more than a blocking call) |`);
  console.log(`| streamed event | ${m('stubEvent')} | ${m('coreEvent')} (${own('coreEvent', 'stubEvent')}) | — |`);
}

await main();
