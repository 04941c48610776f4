/**
 * What each of the core's decorators adds to one short streamed call (a task, three WORKING chunks,
 * INPUT_REQUIRED: the reply a facade send reads), in process: the stub upstream, then the stack built
 * up one layer at a time, as createGateway composes it from the agent up, all measured alternately in
 * rounds so a shared host's drift hits every row alike. `recording` is measured twice: with the task
 * writer, and with a writer that writes nothing, which prices the registry's writes apart from the
 * layer's own tap. Registry writes per call are counted too.
 *
 *   node --import tsx bench/core-layers.ts [--rounds 7] [--calls 6000]
 */
import { parseArgs } from 'node:util';
import { admitting } from '../src/core/admission.js';
import type { AgentPort, CallContext } from '../src/core/agent-port.js';
import { createContextLanes } from '../src/core/context-lanes.js';
import { fanningOut } from '../src/core/fan-out.js';
import { recording } from '../src/core/recording.js';
import { createRedaction, redacting } from '../src/core/redact.js';
import { subscribable } from '../src/core/subscribable.js';
import { createTaskEventHub } from '../src/core/task-event-hub.js';
import { createMemoryTaskRegistry } from '../src/core/task-registry/memory.js';
import type { TaskRegistry } from '../src/core/task-registry/types.js';
import { taskScoped } from '../src/core/task-scope.js';
import { createTaskWriter, type TaskWriter } from '../src/core/task-writer.js';
import type { SendMessageRequest, StreamResponse } from '../src/model/index.js';
import { median, round } from './lib/stats.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, calls: { type: 'string', default: '6000' } } });

let sequence = 0;
const stub = {
  async *sendStreamingMessage(): AsyncGenerator<StreamResponse> {
    const n = ++sequence;
    const ids = { taskId: `t${n}`, contextId: `c${n}` };
    yield { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' } } };
    for (let i = 0; i < 3; i++) {
      const message = { messageId: `m${n}`, role: 'ROLE_AGENT' as const, parts: [{ text: `chunk ${i}` }] };
      yield { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message } } };
    }
    yield { statusUpdate: { ...ids, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } };
  },
} as unknown as AgentPort;

const signal = new AbortController().signal;
const ctx = (): CallContext => ({ principal: 'bench', signal, surface: 'jsonrpc' });
const request = (): SendMessageRequest => ({ message: { messageId: `m-${++sequence}`, role: 'ROLE_USER', parts: [{ text: 'make a vpc' }] } });

/** The registry with its writes counted. */
function countedRegistry(): { registry: TaskRegistry; writes: () => number } {
  const registry = createMemoryTaskRegistry({ maxTasks: 100_000, idleTtlMs: 60_000, historyLimit: 200 });
  let writes = 0;
  const applyAll: TaskRegistry['applyAll'] = (events, meta) => {
    writes++;
    return registry.applyAll(events, meta);
  };
  return { registry: Object.assign(Object.create(registry) as TaskRegistry, { applyAll }), writes: () => writes };
}

const noWriter: TaskWriter = {
  fold: () => undefined,
  foldWritten: async () => undefined,
  record: async () => undefined,
  end: async () => undefined,
  settled: async () => undefined,
  settledAll: async () => undefined,
};

/** The stack from the agent up, one more layer per row (core/gateway.ts composes the same). */
function stacks(registry: TaskRegistry): Array<[string, AgentPort]> {
  const writer = createTaskWriter(registry);
  const redaction = createRedaction();
  const metaOf = (c: CallContext) => ({ owner: c.principal, upstream: 'bench' });
  const redacted = redacting(stub, redaction);
  const subscribed = subscribable(redacted, registry);
  const unwritten = recording(subscribed, { registry, writer: noWriter, redaction, metaOf });
  const recorded = recording(subscribed, { registry, writer, redaction, metaOf });
  const fannedOut = fanningOut(recorded, createTaskEventHub());
  const admitted = admitting(fannedOut, { registry, lanes: createContextLanes(), laneKey: (id) => id, settling: writer });
  const scoped = taskScoped(admitted, { registry, settling: writer, unknownTasks: 'agent' });
  return [
    ['stub upstream', stub],
    ['+ redaction', redacted],
    ['+ subscribable', subscribed],
    ['+ recording, no writes', unwritten],
    ['+ recording', recorded],
    ['+ fan-out', fannedOut],
    ['+ admission', admitted],
    ['+ task scope', scoped],
  ];
}

async function perCall(port: AgentPort, calls: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    for await (const _event of port.sendStreamingMessage(request(), ctx())) {
      // Drained as a surface would.
    }
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

const { registry, writes } = countedRegistry();
const rows = stacks(registry);
const samples = new Map<string, number[]>(rows.map(([name]) => [name, []]));
const calls = Number(values.calls);
const rounds = Number(values.rounds);
let writtenCalls = 0;
// One warm-up round, not counted.
for (let r = 0; r <= rounds; r++) {
  for (const [name, port] of rows) {
    const us = await perCall(port, calls);
    if (name !== 'stub upstream' && !name.includes('redaction') && !name.includes('subscribable') && !name.includes('no writes'))
      writtenCalls += calls;
    if (r > 0) samples.get(name)!.push(us);
  }
}
console.log('| stack (agent up) | CPU µs per short streamed call | added by the layer |');
console.log('|---|---|---|');
let previous = 0;
for (const [name, xs] of samples) {
  const us = median(xs);
  console.log(`| ${name} | ${us.toFixed(1)} | ${name === 'stub upstream' ? '—' : (us - previous).toFixed(1)} |`);
  previous = name === '+ recording, no writes' ? previous : us;
}
console.log(`\nregistry writes per recorded call: ${round(writes() / writtenCalls)}`);
