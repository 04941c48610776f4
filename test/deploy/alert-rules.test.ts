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
import { startDemoGateway, type TestGateway } from '../support/gateway.js';

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
