/**
 * The request path's counters and histograms, tallied in plain maps (src/observability/tallies.ts), are
 * scraped exactly as prom-client's own Counter and Histogram write the same observations.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { counterTally, histogramTally } from '../../src/observability/tallies.js';

describe('tallies', () => {
  it("scrape byte for byte as prom-client's own metrics, for every series, bucket, sum and count", async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const labelNames = ['surface', 'method'];
    const buckets = [0.01, 0.1, 1];
    const histogram = new Histogram({ name: 'h_seconds', help: 'a histogram', labelNames, buckets, registers: [theirs] });
    const counter = new Counter({ name: 'c_total', help: 'a counter', labelNames, registers: [theirs] });
    const histogramTallied = histogramTally(ours, { name: 'h_seconds', help: 'a histogram', labelNames, buckets });
    const counterTallied = counterTally(ours, { name: 'c_total', help: 'a counter', labelNames });
    const observations: Array<[string, string, number]> = [
      ['jsonrpc', 'SendMessage', 0.005],
      ['jsonrpc', 'SendMessage', 0.01],
      ['jsonrpc', 'SendMessage', 0.5],
      ['jsonrpc', 'SendMessage', 7],
      ['v025', 'message/send', 0.2],
    ];
    for (const [surface, method, value] of observations) {
      histogram.observe({ surface, method }, value);
      histogramTallied.observe(`${surface} ${method}`, () => ({ surface, method }), value);
      counter.inc({ surface, method }, 2);
      counterTallied.add(`${surface} ${method}`, () => ({ surface, method }), 2);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('h_seconds_bucket{le="0.01",surface="jsonrpc",method="SendMessage"} 2');
  });

  it('ask for the labels once per series, and leave out what is not a number', async () => {
    const registry = new Registry();
    const tally = histogramTally(registry, { name: 'h_seconds', help: 'h', labelNames: ['surface'], buckets: [1] });
    let asked = 0;
    const labels = () => {
      asked++;
      return { surface: 'grpc' };
    };
    for (const value of [0.5, 2, Number.NaN, Infinity]) tally.observe('grpc', labels, value);
    expect(asked).toBe(1);
    expect(await registry.metrics()).toContain('h_seconds_count{surface="grpc"} 2');
  });
});
