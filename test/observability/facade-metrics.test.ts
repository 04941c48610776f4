/**
 * a2a_bridge_stream_events_total{surface="v025"} and a2a_bridge_task_states_total{surface="v025"} count what
 * the 0.2.5 caller received from the facade, not the agent's 1.0 events under its reply reducer: the demo
 * agent ends every turn input-required, as iac-code does, and streams a `template:` turn's file as one
 * artifact the facade shows in chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { scrape, value, type Sample } from '../support/prometheus.js';
import { v025Request } from '../support/facade.js';

const v025 = v025Request;

type Event = { kind: string; status?: { state: string } };

/** The 0.2.5 events of an SSE body, in order. */
const eventsOf = (body: string): Event[] =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => (JSON.parse(line.slice(6)) as { result: Event }).result);

const KINDS = ['task', 'message', 'status-update', 'artifact-update'];
const STATES = ['submitted', 'working', 'input_required', 'auth_required', 'completed', 'failed', 'canceled', 'rejected', 'unspecified', 'other'];

function tally(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of KINDS) counts[`event ${kind}`] = value(samples, 'a2a_bridge_stream_events_total', { surface: 'v025', kind });
  for (const state of STATES) counts[`state ${state}`] = value(samples, 'a2a_bridge_task_states_total', { surface: 'v025', state });
  return counts;
}

const difference = (before: Record<string, number>, after: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(after).map(([key, count]) => [key, count - (before[key] ?? 0)]));

/** What a caller saw, tallied as the metrics should: every event by kind, every change of state. */
function seen(events: Event[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(
    [...KINDS.map((k) => `event ${k}`), ...STATES.map((s) => `state ${s}`)].map((k) => [k, 0]),
  );
  let last: string | undefined;
  for (const event of events) {
    counts[`event ${event.kind}`]! += 1;
    const state = event.status?.state.replace(/-/g, '_');
    if (state !== undefined && state !== last) counts[`state ${state}`]! += 1;
    last = state ?? last;
  }
  return counts;
}

describe('facade metrics count what the 0.2.5 caller received', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(defaultConfig({ port: 0 }), createLogger('silent'));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('message/stream: the events by kind and the states they show, a turn the agent ended input-required counted completed', async () => {
    for (const text of ['Hello metrics', 'template: a VPC for the shop']) {
      const before = tally(await scrape(gateway.url));
      const events = eventsOf(await (await fetch(`${gateway.url}/stream`, v025('message/stream', text))).text());
      const after = tally(await scrape(gateway.url));
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' }, final: true });
      expect(difference(before, after)).toEqual(seen(events));
      expect(difference(before, after)['state input_required']).toBe(0);
    }
  });

  it("message/send: the state of the answer's task, once", async () => {
    const before = tally(await scrape(gateway.url));
    const answer = (await (await fetch(gateway.url, v025('message/send', 'Hello send'))).json()) as { result: Event };
    const after = tally(await scrape(gateway.url));
    expect(answer.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(difference(before, after)).toEqual({ ...seen([]), 'state completed': 1 });
  });

  it('the 1.0 surface still counts its own events and states, under its surface', async () => {
    const before = await scrape(gateway.url);
    await (
      await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendStreamingMessage',
          params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'one' }] } },
        }),
      })
    ).text();
    const after = await scrape(gateway.url);
    const grew = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(grew('a2a_bridge_stream_events_total', { surface: 'jsonrpc', kind: 'status-update' })).toBeGreaterThan(0);
    expect(grew('a2a_bridge_task_states_total', { surface: 'jsonrpc', state: 'input_required' })).toBe(1);
    expect(grew('a2a_bridge_stream_events_total', { surface: 'v025' })).toBe(0);
  });
});
