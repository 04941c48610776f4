/**
 * Latency at a fixed rate on a fresh gateway and on one whose task registry holds many tasks, with the
 * GC pauses of each window (`--trace-gc`): does what the registry keeps slow the tail? One or two
 * builds (side by side, measured alternately, like `ab.ts`).
 *
 *   node --import tsx bench/full-registry.ts --a <dist dir> [--b <dist dir>] [--fill 100000]
 *        [--rate 1000] [--seconds 4] [--windows 3] [--a-config JSON] [--b-config JSON] [--a-node FLAGS] [--b-node FLAGS]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { watchTraceGc, type TraceGc } from './lib/diag.js';
import { fixedRate, saturate, type RequestSpec } from './lib/load.js';
import { killAll, rssKiB, spawnChild, type Child } from './lib/processes.js';
import { median, round } from './lib/stats.js';
import { V1_HEADERS, isV1Reply, sendMessageBody } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    fill: { type: 'string', default: '100000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '4' },
    windows: { type: 'string', default: '3' },
    'a-config': { type: 'string', default: '{}' },
    'b-config': { type: 'string', default: '{}' },
    'a-node': { type: 'string', default: '' },
    'b-node': { type: 'string', default: '' },
  },
});
if (!values.a) throw new Error('usage: bench/full-registry.ts --a <dist dir> [--b <dist dir>]');
const FILL = Number(values.fill);
const RATE = Number(values.rate);
const WINDOW_MS = Number(values.seconds) * 1000;
const WINDOWS = Number(values.windows);
type Side = 'a' | 'b';

interface Window {
  p50: number;
  p99: number;
  max: number;
  failed: number;
  gc: TraceGc;
  rssMiB: number;
}

interface Gateway {
  child: Child;
  gc: ReturnType<typeof watchTraceGc>;
  spec: RequestSpec;
}

async function measure(gateway: Gateway): Promise<Window> {
  gateway.gc.open();
  const run = await fixedRate(gateway.spec, RATE, WINDOW_MS);
  const gc = gateway.gc.close();
  const { p50, p99, max } = run.latencyMs;
  return { p50, p99, max, failed: run.failed, gc, rssMiB: Math.round(rssKiB(gateway.child.pid) / 1024) };
}

async function fill(gateway: Gateway): Promise<number> {
  let sent = 0;
  while (sent < FILL) sent += (await saturate(gateway.spec, 50, 2)).total;
  return sent;
}

function row(side: Side, phase: string, windows: Window[]): string {
  const med = (pick: (w: Window) => number) => round(median(windows.map(pick)));
  const pauses = windows.map((w) => `${w.gc.markCompacts}/${w.gc.scavenges} ${w.gc.pauseMs} ms`).join(', ');
  return `| ${side} | ${phase} | ${med((w) => w.p50)} | ${med((w) => w.p99)} | ${Math.max(...windows.map((w) => w.max))} | ${pauses} | ${windows.at(-1)!.rssMiB} |`;
}

async function main(): Promise<void> {
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const sides: Side[] = values.b ? ['a', 'b'] : ['a'];
  const gateways = {} as Record<Side, Gateway>;
  for (const side of sides) {
    const overrides = JSON.stringify({ ...JSON.parse(values[`${side}-config`]), upstream: { url: agent.url } });
    const child = await spawnChild(`gateway ${side}`, 'bench/gateway-process.mjs', [overrides], {
      env: { BENCH_DIST: resolve(values[side]!) },
      nodeArgs: ['--trace-gc', ...values[`${side}-node`].split(' ').filter(Boolean)],
    });
    const spec = { origin: child.url, headers: V1_HEADERS, body: sendMessageBody(), verify: isV1Reply };
    gateways[side] = { child, gc: watchTraceGc(child), spec };
    await saturate(spec, 50, 1); // warm-up
  }
  const results: Record<string, Window[]> = {};
  const alternate = async (phase: string) => {
    for (let w = 0; w < WINDOWS; w++) {
      for (const side of w % 2 === 0 ? sides : [...sides].reverse()) (results[`${side} ${phase}`] ??= []).push(await measure(gateways[side]));
    }
  };
  await alternate('fresh');
  for (const side of sides) process.stdout.write(`gateway ${side}: filled with ${await fill(gateways[side])} tasks\n`);
  await alternate('full');
  process.stdout.write(
    `\n${RATE} req/s, ${WINDOWS} windows of ${WINDOW_MS / 1000} s; A = ${values.a}${values.b ? `, B = ${values.b}` : ''}\n\n` +
      '| build | registry | p50 ms | p99 ms | max ms | GC per window: mark-compacts/scavenges pause | RSS MiB |\n|---|---|---|---|---|---|---|\n',
  );
  for (const phase of ['fresh', 'full']) for (const side of sides) process.stdout.write(`${row(side, phase, results[`${side} ${phase}`]!)}\n`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
