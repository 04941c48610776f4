/**
 * What the core (createGateway: task scope, turn ordering, fan-out, the registry, redaction) costs by
 * itself, in process, without sockets or HTTP: CPU per blocking SendMessage and per streamed event,
 * through the core over a stub upstream, minus the stub alone. The bench's other tools measure whole
 * hops; this one says how much of a hop's cost is the decorator stack.
 *
 *   node --import tsx bench/core-cost.ts [--rounds 5] [--calls 30000] [--events 20000]
 */
import { parseArgs } from 'node:util';
import type { AgentPort, CallContext } from '../src/core/agent-port.js';
import { createGateway } from '../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../src/core/task-registry/memory.js';
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

async function main(): Promise<void> {
  const registry = createMemoryTaskRegistry({ maxTasks: 100_000, idleTtlMs: 60_000, historyLimit: 200 });
  const core = createGateway(stub, { registry, upstreamName: 'bench' });
  const calls = Number(values.calls);
  const events = Number(values.events) + 2;
  const samples = { stubCall: [] as number[], coreCall: [] as number[], stubEvent: [] as number[], coreEvent: [] as number[] };
  // One warm-up round, not counted.
  for (let r = 0; r <= Number(values.rounds); r++) {
    const round = [await blocking(stub, calls), await blocking(core, calls), await streamed(stub, events), await streamed(core, events)];
    if (r === 0) continue;
    samples.stubCall.push(round[0]!);
    samples.coreCall.push(round[1]!);
    samples.stubEvent.push(round[2]!);
    samples.coreEvent.push(round[3]!);
  }
  const m = (list: number[]) => round(median(list));
  console.log('| unit | stub alone, CPU µs | through the core, CPU µs | the core’s own |');
  console.log('|---|---|---|---|');
  console.log(
    `| blocking SendMessage | ${m(samples.stubCall)} | ${m(samples.coreCall)} | ${round(median(samples.coreCall) - median(samples.stubCall))} |`,
  );
  console.log(
    `| streamed event | ${m(samples.stubEvent)} | ${m(samples.coreEvent)} | ${round(median(samples.coreEvent) - median(samples.stubEvent))} |`,
  );
}

await main();
