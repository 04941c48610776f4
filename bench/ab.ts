/**
 * A/B of two gateway builds on the same machine at the same time: the gateway's own CPU per request
 * (blocking SendMessage, facade message/send) and per event (one long 1.0 stream), with both builds
 * running side by side and measured alternately, so host load hits both alike. CPU per unit is the
 * verdict here; throughput is printed but moves with the host.
 *
 *   node --import tsx bench/ab.ts --a <dist dir> --b <dist dir> [--rounds 4] [--seconds 3]
 *
 * Snapshot a build with `npm run build && cp -r dist bench/.builds/<name>`: a build must sit inside
 * the repo so that it finds node_modules and mappings/.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { saturate, type RequestSpec } from './lib/load.js';
import { cpuMs, killAll, spawnChild, type Child } from './lib/processes.js';
import { timedStream } from './lib/sse.js';
import { median, round } from './lib/stats.js';
import { V025_HEADERS, V1_HEADERS, V1_STREAM_HEADERS, isV025Reply, isV1Reply, sendMessageBody, streamBody, v025SendBody } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '3' },
    chunks: { type: 'string', default: '10000' },
  },
});
if (!values.a || !values.b) throw new Error('usage: bench/ab.ts --a <dist dir> --b <dist dir>');
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const chunks = Number(values.chunks);

type Measure = 'blocking' | 'facade' | 'stream';
interface Sample {
  cpuUs: number;
  rate: number;
}

async function cpuPer<T>(gateway: Child, work: () => Promise<T>, units: (result: T) => number): Promise<{ cpuUs: number; result: T }> {
  const before = cpuMs(gateway.pid);
  const result = await work();
  return { cpuUs: round(((cpuMs(gateway.pid) - before) * 1000) / Math.max(units(result), 1)), result };
}

async function measure(gateway: Child, what: Measure): Promise<Sample> {
  if (what === 'stream') {
    const client = new Client(gateway.url);
    try {
      const { cpuUs, result } = await cpuPer(
        gateway,
        () => timedStream(client, { headers: V1_STREAM_HEADERS, body: streamBody({ chunks, delayMs: 0 }), timeoutMs: 60_000, stamps: false }),
        (timing) => timing.events,
      );
      return { cpuUs, rate: round(result.events / (result.spanMs / 1000)) };
    } finally {
      await client.close();
    }
  }
  const spec: RequestSpec =
    what === 'blocking'
      ? { origin: gateway.url, headers: V1_HEADERS, body: sendMessageBody(), verify: isV1Reply }
      : { origin: gateway.url, headers: V025_HEADERS, body: v025SendBody(), verify: isV025Reply };
  const { cpuUs, result } = await cpuPer(
    gateway,
    () => saturate(spec, 50, seconds),
    (run) => run.total,
  );
  return { cpuUs, rate: result.rps };
}

async function main(): Promise<void> {
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const overrides = JSON.stringify({ upstream: { url: agent.url } });
  const builds = { a: resolve(values.a!), b: resolve(values.b!) };
  const gateways = {
    a: await spawnChild('gateway a', 'bench/gateway-process.mjs', [overrides], { env: { BENCH_DIST: builds.a } }),
    b: await spawnChild('gateway b', 'bench/gateway-process.mjs', [overrides], { env: { BENCH_DIST: builds.b } }),
  };
  const samples: Record<'a' | 'b', Record<Measure, Sample[]>> = {
    a: { blocking: [], facade: [], stream: [] },
    b: { blocking: [], facade: [], stream: [] },
  };
  // Warm-up: JIT both builds on every path before anything counts.
  for (const side of ['a', 'b'] as const) for (const what of ['blocking', 'facade', 'stream'] as const) await measure(gateways[side], what);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const what of ['blocking', 'facade', 'stream'] as const) {
      for (const side of order) samples[side][what].push(await measure(gateways[side], what));
    }
    process.stdout.write(`round ${r + 1}/${rounds} done\n`);
  }
  process.stdout.write(
    `\nA = ${builds.a}\nB = ${builds.b}\n\n| measure | A CPU µs | B CPU µs | B ÷ A | A rate | B rate |\n|---|---|---|---|---|---|\n`,
  );
  for (const what of ['blocking', 'facade', 'stream'] as const) {
    const cpu = (side: 'a' | 'b') => median(samples[side][what].map((s) => s.cpuUs));
    const rate = (side: 'a' | 'b') => median(samples[side][what].map((s) => s.rate));
    const unit = what === 'stream' ? 'event' : 'request';
    process.stdout.write(`| ${what} (per ${unit}) | ${cpu('a')} | ${cpu('b')} | ${round(cpu('b') / cpu('a'))} | ${rate('a')} | ${rate('b')} |\n`);
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
