/**
 * The events of a caller's stream are counted in the stream and added to a2a_bridge_stream_events_total
 * every EVENTS_PER_COUNT events and at the stream's end, however it ends: a long stream shows on the
 * counter while it runs, and no event is lost or counted twice.
 */
import { describe, expect, it } from 'vitest';
import type { AgentPort } from '../../src/core/agent-port.js';
import type { StreamResponse } from '../../src/model/index.js';
import { createGatewayMetrics } from '../../src/observability/metrics.js';
import { EVENTS_PER_COUNT, meteredPort } from '../../src/observability/metrics-port.js';
import { parse, value } from '../support/prometheus.js';

const working = (taskId: string): StreamResponse => ({
  statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
});
const chunk = (taskId: string, n: number): StreamResponse => ({
  artifactUpdate: { taskId, contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: `${n}` }] }, append: n > 0 },
});

/** A port whose streams carry one status update, then `chunks` artifact updates. */
function streamingPort(chunks: number): AgentPort {
  return {
    async *sendStreamingMessage() {
      yield working('t');
      for (let n = 0; n < chunks; n++) yield chunk('t', n);
    },
  } as unknown as AgentPort;
}

async function counted(metrics: ReturnType<typeof createGatewayMetrics>): Promise<Record<string, number>> {
  const samples = parse(await metrics.registry.metrics());
  return {
    status: value(samples, 'a2a_bridge_stream_events_total', { surface: 'jsonrpc', kind: 'status-update' }) ?? 0,
    artifact: value(samples, 'a2a_bridge_stream_events_total', { surface: 'jsonrpc', kind: 'artifact-update' }) ?? 0,
  };
}

const ctx = { principal: 'p', signal: new AbortController().signal, surface: 'jsonrpc' as const };

describe('a2a_bridge_stream_events_total', () => {
  it('counts a long stream while it runs, every EVENTS_PER_COUNT events, and exactly at its end', async () => {
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    const chunks = EVENTS_PER_COUNT * 2 + 10;
    const events = meteredPort(streamingPort(chunks), metrics)
      .sendStreamingMessage({ message: {} } as never, ctx)
      [Symbol.asyncIterator]();
    for (let read = 0; read < EVENTS_PER_COUNT; read++) await events.next();
    expect(await counted(metrics)).toEqual({ status: 1, artifact: EVENTS_PER_COUNT - 1 });
    while (!(await events.next()).done);
    expect(await counted(metrics)).toEqual({ status: 1, artifact: chunks });
  });

  it('a stream its reader leaves counts what was read, once', async () => {
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    const events = meteredPort(streamingPort(100), metrics)
      .sendStreamingMessage({ message: {} } as never, ctx)
      [Symbol.asyncIterator]();
    for (let read = 0; read < 5; read++) await events.next();
    await events.return?.();
    await events.return?.();
    expect(await counted(metrics)).toEqual({ status: 1, artifact: 4 });
  });
});
