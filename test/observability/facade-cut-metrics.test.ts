/**
 * A Bailian turn the gateway's drain cuts (a rollout: its drain time over while the agent still works) ends
 * `failed` for its user, with words that say the agent goes on and that their next message shows its end. It is
 * counted in a2a_bridge_task_states_total{state="failed"} under reason="shutdown", never among the turns that
 * failed at the agent (no reason), which an alert watches: that alert must not fire on every rollout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { AgentPort } from '../../src/core/agent-port.js';
import { createTaskRegistry } from '../../src/core/task-registry/index.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { createGatewayApp } from '../../src/gateway-app.js';
import { A2AError, type Message, type StreamResponse } from '../../src/model/index.js';
import { createObservability } from '../../src/observability/index.js';
import { createGatewayMetrics } from '../../src/observability/metrics.js';
import { capturedLog } from '../support/captured-log.js';
import { sentText, streamedText, userMessage } from '../support/facade.js';
import { parse, value } from '../support/prometheus.js';
import { fixedCards, StubPort } from '../surfaces/support.js';

const said = (text: string): Message => ({ messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] });
const CUT_WORDS = '智能体仍在继续处理你的请求';

const registries: TaskRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

/** A facade replica over `agent`, with metrics and the gateway's shutdown signal. */
function replica(agent: Partial<AgentPort>) {
  const config = defaultConfig({ 'keepalive-ms': 0 });
  const registry = createTaskRegistry(config);
  registries.push(registry);
  const metrics = createGatewayMetrics({ defaultMetrics: false });
  const shutdown = new AbortController();
  const log = capturedLog();
  const app = createGatewayApp({
    config,
    port: new StubPort(agent),
    cards: fixedCards(),
    registry,
    logger: log.logger,
    shutdown: shutdown.signal,
    observability: createObservability(config, { metrics }),
  });
  const call = (method: string, text: string, contextId: string) =>
    app.request(`http://gw.test/${method === 'message/stream' ? 'stream' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'c-1', method, params: { message: userMessage({ text, contextId }) } }),
    });
  /** The facade's failed turns as counted: the agent's (no reason), and the drain's. */
  const failedTurns = async () => {
    const samples = parse(await metrics.registry.metrics());
    const failed = samples.filter((s) => s.name === 'a2a_bridge_task_states_total' && s.labels.surface === 'v025' && s.labels.state === 'failed');
    return {
      agents: failed.filter((s) => s.labels.reason === undefined).reduce((sum, s) => sum + s.value, 0),
      cutByShutdown: value(samples, 'a2a_bridge_task_states_total', { surface: 'v025', state: 'failed', reason: 'shutdown' }),
    };
  };
  /** The request lines written so far. */
  const requestLines = () => log.lines.filter((line) => line.msg === 'request');
  return { call, shutdown, failedTurns, requestLines };
}

/** An agent that says one thing, tells `said` so, then works on until the call ends (the drain cuts it). */
function goingOn(contextId: string, spoke: () => void): Partial<AgentPort> {
  const events = async function* (signal: AbortSignal | undefined): AsyncGenerator<StreamResponse> {
    yield { task: { id: 'task-1', contextId, status: { state: 'TASK_STATE_SUBMITTED' } } };
    yield { statusUpdate: { taskId: 'task-1', contextId, status: { state: 'TASK_STATE_WORKING', message: said('第一段：开始规划。') } } };
    spoke();
    await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
    throw signal?.reason;
  };
  return { sendStreamingMessage: (_request, ctx) => events(ctx.signal) };
}

/** The 0.2.5 results of a message/stream response. */
async function resultsOf(response: Response): Promise<any[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)).result);
}

describe('a Bailian turn the drain cuts is counted apart from the turns that failed at the agent', () => {
  it('message/stream: failed for its user, counted reason="shutdown", not among the failed turns', async () => {
    const { call, shutdown, failedTurns } = replica(goingOn('ctx-stream', () => setImmediate(() => shutdown.abort(A2AError.shuttingDown()))));
    const events = await resultsOf(await call('message/stream', '规划一个VPC', 'ctx-stream'));
    // What the user saw: the turn failed, and why (the agent goes on; their next message shows its end).
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    expect(streamedText(events)).toContain(CUT_WORDS);
    expect(await failedTurns()).toEqual({ agents: 0, cutByShutdown: 1 });
  });

  it('message/send: the same, and its request line says why at info', async () => {
    const { call, shutdown, failedTurns, requestLines } = replica(
      goingOn('ctx-send', () => setImmediate(() => shutdown.abort(A2AError.shuttingDown()))),
    );
    const answer: any = await (await call('message/send', '规划一个VPC', 'ctx-send')).json();
    expect(answer.result).toMatchObject({ kind: 'task', status: { state: 'failed' } });
    expect(sentText(answer.result)).toContain(CUT_WORDS);
    expect(await failedTurns()).toEqual({ agents: 0, cutByShutdown: 1 });
    // The agent goes on with the turn: nothing to look into, and no flood of warnings on every rollout.
    expect(requestLines()).toEqual([expect.objectContaining({ level: 30, method: 'message/send', state: 'failed', stateReason: 'shutdown' })]);
    expect(requestLines()[0]).not.toHaveProperty('cause');
  });

  it('a turn the agent failed is still counted failed, with no reason', async () => {
    const failing: Partial<AgentPort> = {
      async *sendStreamingMessage() {
        yield { task: { id: 'task-1', contextId: 'ctx-failed', status: { state: 'TASK_STATE_SUBMITTED' } } };
        yield { statusUpdate: { taskId: 'task-1', contextId: 'ctx-failed', status: { state: 'TASK_STATE_FAILED', message: said('部署失败') } } };
      },
    };
    const { call, failedTurns } = replica(failing);
    const events = await resultsOf(await call('message/stream', '规划一个VPC', 'ctx-failed'));
    expect(events.at(-1)).toMatchObject({ status: { state: 'failed' } });
    expect(await failedTurns()).toEqual({ agents: 1, cutByShutdown: 0 });
  });
});
