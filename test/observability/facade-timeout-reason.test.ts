/**
 * A Bailian `message/send` whose turn outlasts `upstream.request-timeout-ms` is answered `failed` with words that say
 * the agent is still working on it and that the next message in the conversation shows its result: the gateway's
 * bound ended the call, not the agent the turn. It is counted in a2a_bridge_task_states_total{state="failed"} under
 * reason="timeout", and its request line says so (`stateReason`, at info), never among the turns the agent failed
 * (no reason, at warn with a cause), which A2ABridgeBailianTurnsFailing watches: before, every turn longer than the
 * bound counted there though the agent completes it. The agent is a real a2a-js 1.x server whose `slow:` turn runs
 * for seconds. (A `message/stream` whose first event outlasts `upstream.first-event-timeout-ms` shows no failed state:
 * it ends with an error frame in the same words, test/e2e/facade/unwatched-silent-turns.test.ts, and counts no state.)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../support/gateway.js';
import { scrape, type Sample } from '../support/prometheus.js';
import { rpc, sentText, userMessage } from '../support/facade.js';
import { waitUntil } from '../support/wait-until.js';

const BOUND_MS = 600;
const INFO = 30;

/** The facade's failed-turn series of a scrape, by reason ('' for the series without one). */
const failedByReason = (samples: Sample[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const sample of samples) {
    if (sample.name !== 'a2a_bridge_task_states_total' || sample.labels.surface !== 'v025' || sample.labels.state !== 'failed') continue;
    const reason = sample.labels.reason ?? '';
    counts[reason] = (counts[reason] ?? 0) + sample.value;
  }
  return counts;
};

/**
 * What the numerator of deploy/prometheus's A2ABridgeBailianTurnsFailing (its first selector, the turns the agent
 * failed) sums of `samples`: its label matchers as Prometheus applies them (a label a series lacks reads "").
 */
async function failingTurnsNumerator(): Promise<(samples: Sample[]) => number> {
  const file = YAML.parse(await readFile(path.resolve(__dirname, '../../deploy/prometheus/a2a-bridge.rules.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
  };
  const expr = file.groups.flatMap((group) => group.rules).find((rule) => rule.alert === 'A2ABridgeBailianTurnsFailing')!.expr;
  const [, name, matchers] = /([a-zA-Z_:][\w:]*)\{([^}]*)\}/.exec(expr)!;
  const tests = [...matchers!.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map(([, label, op, wanted]) => (labels: Record<string, string>) => {
    const actual = labels[label!] ?? '';
    const matches = op!.includes('~') ? new RegExp(`^(?:${wanted})$`).test(actual) : actual === wanted;
    return op!.startsWith('!') ? !matches : matches;
  });
  return (samples) => samples.filter((s) => s.name === name && tests.every((test) => test(s.labels))).reduce((sum, s) => sum + s.value, 0);
}

describe('a Bailian message/send whose turn outlasts upstream.request-timeout-ms', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // A `slow:` turn: ten more chunks, 400 ms apart, so four seconds, far past the bound.
    gateway = await startSdkGateway({ 'keepalive-ms': 0, upstream: { 'request-timeout-ms': BOUND_MS } }, { slowChunkDelayMs: 400 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('is answered failed, told the agent goes on; counted reason="timeout" and logged stateReason timeout at info', async () => {
    const numerator = await failingTurnsNumerator();
    const scraped = await scrape(gateway.url);
    const before = failedByReason(scraped);
    const skip = gateway.requestLog().length;
    const answer = await rpc(`${gateway.url}/`, 'message/send', { message: userMessage({ text: 'slow: plan the network', contextId: 'ctx-long' }) });
    expect(answer.body.result.status.state).toBe('failed');
    expect(sentText(answer.body.result)).toContain('still working on your request');

    const rescraped = await scrape(gateway.url);
    const after = failedByReason(rescraped);
    expect((after.timeout ?? 0) - (before.timeout ?? 0)).toBe(1);
    expect((after[''] ?? 0) - (before[''] ?? 0)).toBe(0);
    // The alert on the turns the agent failed does not count it.
    expect(numerator(rescraped) - numerator(scraped)).toBe(0);

    const lines = () =>
      gateway
        .requestLog()
        .slice(skip)
        .filter((line) => line.method === 'message/send');
    await waitUntil(async () => lines().length > 0);
    expect(lines()).toEqual([expect.objectContaining({ state: 'failed', stateReason: 'timeout', level: INFO })]);
    expect(lines()[0]).not.toHaveProperty('cause');
  });
});
