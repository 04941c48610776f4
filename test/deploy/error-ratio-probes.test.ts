/**
 * A2ABridgeErrorRatio is the share of callers' calls that failed for a reason not theirs. The probes of balancers
 * and kubelets (`/health`, `/ready`, every few seconds each) are counted in a2a_bridge_requests_total too, under
 * `surface="health"`: they are no caller's call, and left in they outnumber a quiet gateway's calls, so that
 * every call failing reads as a few percent, below the alert's 5 %. The rule's expression, evaluated here on a
 * real scrape as Prometheus would (a rate's ratio is the ratio of the increases over one window), must read
 * the calls alone.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, type Sample } from '../support/prometheus.js';

const root = path.resolve(__dirname, '../..');

/** The label matchers of the one `a2a_bridge_requests_total{…}` selector in `text`. */
function matchersOf(text: string): Array<(labels: Record<string, string>) => boolean> {
  const selector = /a2a_bridge_requests_total\s*(?:\{([^}]*)\})?/.exec(text);
  expect(selector, text).not.toBeNull();
  return [...(selector![1] ?? '').matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(([, label, op, wanted]) => {
    const anchored = new RegExp(`^(?:${wanted})$`);
    return (labels: Record<string, string>) => {
      const got = labels[label!] ?? '';
      if (op === '=') return got === wanted;
      if (op === '!=') return got !== wanted;
      return op === '=~' ? anchored.test(got) : !anchored.test(got);
    };
  });
}

const summed = (samples: Sample[], matchers: Array<(labels: Record<string, string>) => boolean>): number =>
  samples
    .filter((sample) => sample.name === 'a2a_bridge_requests_total' && matchers.every((matches) => matches(sample.labels)))
    .reduce((sum, sample) => sum + sample.value, 0);

let fake: FakeIacCode;
let gateway: TestGateway;
let numerator: ReturnType<typeof matchersOf>;
let denominator: ReturnType<typeof matchersOf>;

beforeAll(async () => {
  const file = YAML.parse(await readFile(path.join(root, 'deploy/prometheus/a2a-bridge.rules.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
  };
  const expr = file.groups.flatMap((group) => group.rules).find((rule) => rule.alert === 'A2ABridgeErrorRatio')!.expr;
  const [above, below] = expr.split('/');
  numerator = matchersOf(above!);
  denominator = matchersOf(below!);
  fake = await startFakeIacCode();
  gateway = await startTestGateway({ upstream: { url: fake.url } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

describe('A2ABridgeErrorRatio and the probes', () => {
  it('reads every call failing as every call failing, whatever the probes meanwhile', async () => {
    const before = await scrape(gateway.url);
    // A kubelet's readiness and liveness probes over the window, and a quiet gateway's two calls, both failing.
    for (let probe = 0; probe < 30; probe++) {
      await (await fetch(`${gateway.url}/ready`)).text();
      await (await fetch(`${gateway.url}/health`)).text();
    }
    for (let call = 0; call < 2; call++) {
      const message = { messageId: `m-${call}`, role: 'ROLE_USER', parts: [{ text: '[fault:http-500]' }] };
      const res = await fetch(`${gateway.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: call, method: 'SendMessage', params: { message } }),
      });
      expect(((await res.json()) as { error?: { code: number } }).error?.code).toBe(-32006);
    }
    const after = await scrape(gateway.url);
    const failed = summed(after, numerator) - summed(before, numerator);
    const all = summed(after, denominator) - summed(before, denominator);
    expect(failed).toBe(2);
    expect(failed / all).toBe(1);
  });
});
