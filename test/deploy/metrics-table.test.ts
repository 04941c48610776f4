/**
 * deploy/README.md's metrics table is where an operator looks a metric up: every metric the gateway exports
 * has its row there.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createGatewayMetrics } from '../../src/observability/metrics.js';

it("every metric of the gateway's own has a row in deploy/README.md's metrics table", async () => {
  const readme = await readFile(path.resolve(__dirname, '../../deploy/README.md'), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('| `a2a_bridge_'));
  const names = (await createGatewayMetrics({ defaultMetrics: false }).registry.getMetricsAsJSON()).map((metric) => metric.name);
  expect(names.length).toBeGreaterThan(10);
  expect(names.filter((name) => !rows.some((row) => row.split('|')[1]!.includes(`\`${name}\``)))).toEqual([]);
});
