/**
 * deploy/prometheus/a2a-bridge.rules.yml, the alerts of deploy/README.md ("What to alert on") as Prometheus
 * rules: every metric an expression queries is one a started gateway exports (read from its scrape, so a renamed
 * metric or a typo fails here, not silently in an alert that never fires), every label it matches on is one that
 * metric has, and the README and the file agree: the same alerts, and each alert's metrics named where the
 * README describes it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayMetrics } from '../../src/observability/metrics.js';
import { CLOSED_PORT } from '../support/free-port.js';
import { startDemoGateway, startTestGateway, type TestGateway } from '../support/gateway.js';
import { parse } from '../support/prometheus.js';

const root = path.resolve(__dirname, '../..');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string };
}

/** PromQL's words that are not metric names (functions and aggregations are told by the `(` after them). */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset']);
/** Labels Prometheus adds (the target's) or a histogram's samples carry. */
const ADDED_LABELS = new Set(['instance', 'job', 'le']);

/** The metric selectors of a PromQL expression: each metric's name and the labels it matches on. */
function selectorsOf(expr: string): Array<{ name: string; labels: string[] }> {
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const selectors: Array<{ name: string; labels: string[] }> = [];
  for (const [, name, matchers, call] of text.matchAll(/([a-zA-Z_:][\w:]*)\s*(\{[^}]*\})?\s*(\()?/g)) {
    if (call || KEYWORDS.has(name!)) continue;
    selectors.push({ name: name!, labels: [...(matchers ?? '').matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!) });
  }
  return selectors;
}

/** The sample names a scrape's `# TYPE` lines declare: a histogram's `_bucket`, `_sum` and `_count`. */
function sampleNames(scrape: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const [, name, type] of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram' || type === 'summary') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.set(`${name}${suffix}`, name!);
    }
    if (type !== 'histogram') names.set(name!, name!);
  }
  return names;
}

/** deploy/README.md's "What to alert on" list, one entry per bullet. */
async function readmeAlertBullets(): Promise<string[]> {
  const readme = await readFile(path.join(root, 'deploy/README.md'), 'utf8');
  const start = readme.indexOf('What to alert on', readme.indexOf('\n## Metrics'));
  expect(start).toBeGreaterThan(0);
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  return section.split(/\n- /).slice(1);
}

describe('deploy/prometheus/a2a-bridge.rules.yml', () => {
  let rules: Rule[];
  let exported: Map<string, string>;
  let gateway: TestGateway;
  beforeAll(async () => {
    const file = YAML.parse(await readFile(path.join(root, 'deploy/prometheus/a2a-bridge.rules.yml'), 'utf8')) as {
      groups: Array<{ rules: Rule[] }>;
    };
    rules = file.groups.flatMap((group) => group.rules);
    gateway = await startDemoGateway();
    const scrape = await fetch(`${gateway.url}/metrics`);
    expect(scrape.status).toBe(200);
    exported = sampleNames(await scrape.text());
  });
  afterAll(() => gateway?.close());

  it('every rule is an alert with an expression, a severity and a summary, under a name of its own', () => {
    expect(rules.length).toBeGreaterThan(5);
    for (const rule of rules) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^A2ABridge[A-Za-z]+$/);
      expect(selectorsOf(rule.expr).length, rule.alert).toBeGreaterThan(0);
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
    }
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
  });

  it("queries only metrics the gateway exports, and only labels they have (Prometheus's instance, job, le aside)", () => {
    const registry = createGatewayMetrics({ defaultMetrics: false }).registry;
    for (const rule of rules) {
      for (const { name, labels } of selectorsOf(rule.expr)) {
        expect(exported.has(name), `${rule.alert}: ${name} is not exported`).toBe(true);
        const metric = registry.getSingleMetric(exported.get(name)!) as unknown as { labelNames: string[] } | undefined;
        expect(metric, `${rule.alert}: ${name}`).toBeDefined();
        for (const label of labels) {
          if (!ADDED_LABELS.has(label)) expect(metric!.labelNames, `${rule.alert}: ${name}{${label}}`).toContain(label);
        }
      }
    }
  });

  it('the README names every alert of the file and no other, and where it names one, the metrics its expression queries', async () => {
    const bullets = await readmeAlertBullets();
    const named = bullets.flatMap((bullet) => [...bullet.matchAll(/`(A2ABridge\w+)`/g)].map((m) => m[1]!));
    expect([...named].sort()).toEqual(rules.map((rule) => rule.alert).sort());
    for (const bullet of bullets) {
      for (const [, alert] of bullet.matchAll(/`(A2ABridge\w+)`/g)) {
        const rule = rules.find((one) => one.alert === alert)!;
        for (const { name } of selectorsOf(rule.expr)) expect(bullet, `${alert} queries ${name}`).toContain(exported.get(name) ?? name);
      }
    }
  });
});

describe("A2ABridgeErrorRatio counts the errors that are not the caller's", () => {
  let gateway: TestGateway;
  let counted: RegExp;
  beforeAll(async () => {
    const file = YAML.parse(await readFile(path.join(root, 'deploy/prometheus/a2a-bridge.rules.yml'), 'utf8')) as {
      groups: Array<{ rules: Rule[] }>;
    };
    const expr = file.groups.flatMap((group) => group.rules).find((rule) => rule.alert === 'A2ABridgeErrorRatio')!.expr;
    const numerator = /error_code=~"([^"]+)"/.exec(expr);
    expect(numerator, expr).not.toBeNull();
    counted = new RegExp(`^(?:${numerator![1]})$`);
    // An agent that is not there: every turn fails for a reason no caller can mend.
    gateway = await startTestGateway({ upstream: { url: `http://127.0.0.1:${CLOSED_PORT}` } });
  });
  afterAll(() => gateway?.close());

  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json', 'A2A-Version': '1.0' }) =>
    fetch(`${gateway.url}/`, { method: 'POST', headers, body });
  const errorCodes = async (): Promise<string[]> =>
    parse(await (await fetch(`${gateway.url}/metrics`)).text())
      .filter((sample) => sample.name === 'a2a_bridge_requests_total' && sample.labels.outcome === 'error' && sample.value > 0)
      .map((sample) => sample.labels.error_code!);

  it("a scanner's and a careless caller's errors stay out of it; an agent out of reach is in it", async () => {
    await fetch(`${gateway.url}/wp-login.php`);
    await post('{not json');
    await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'NoSuchMethod', params: {} }));
    await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: {} }));
    await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: {} }), { 'content-type': 'application/json' });
    await post(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: {} }), { 'content-type': 'text/plain', 'A2A-Version': '1.0' });
    const callerMade = await errorCodes();
    expect(callerMade.length).toBeGreaterThanOrEqual(5);
    expect(callerMade.filter((code) => counted.test(code))).toEqual([]);

    const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] };
    const answer = (await (await post(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'SendMessage', params: { message } }))).json()) as {
      error?: { code: number };
    };
    expect(answer.error?.code).toBe(-32603);
    expect((await errorCodes()).filter((code) => counted.test(code))).toEqual(['-32603']);
  });
});
