/**
 * A/B of two gateway builds on the same machine at the same time: the gateway's own CPU per request
 * (blocking SendMessage, facade message/send) and per event (one long 1.0 stream), with both builds
 * running side by side and measured alternately, so host load hits both alike. CPU per unit is the
 * verdict here; throughput is printed but moves with the host.
 *
 *   node --import tsx bench/ab.ts --a <dist dir> --b <dist dir> [--rounds 4] [--seconds 3]
 *        [--a-config JSON] [--b-config JSON]   # config overrides per side (one build, two configs: an ablation)
 *        [--only blocking,facade,stream] [--chunks 10000]
 *        [--a-node "--flag …"] [--b-node "--flag …"]   # node flags per side (e.g. V8 heap sizes)
 *
 * Snapshot a build with `npm run build && cp -r dist bench/.builds/<name>`: a build must sit inside
 * the repo so that it finds node_modules and mappings/.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { measureHop, type HopSample, type Measure } from './lib/hop-measure.js';
import { killAll, spawnChild } from './lib/processes.js';
import { median, round } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '3' },
    chunks: { type: 'string', default: '10000' },
    only: { type: 'string', default: 'blocking,facade,stream' },
    'a-config': { type: 'string', default: '{}' },
    'b-config': { type: 'string', default: '{}' },
    'a-node': { type: 'string', default: '' },
    'b-node': { type: 'string', default: '' },
  },
});
if (!values.a || !values.b) throw new Error('usage: bench/ab.ts --a <dist dir> --b <dist dir>');
const rounds = Number(values.rounds);
const options = { seconds: Number(values.seconds), chunks: Number(values.chunks) };
const MEASURES: readonly Measure[] = ['blocking', 'facade', 'stream'];
const measures = values.only.split(',').filter((name): name is Measure => (MEASURES as readonly string[]).includes(name));

async function main(): Promise<void> {
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const overrides = (side: 'a' | 'b') => JSON.stringify({ ...JSON.parse(values[`${side}-config`]), upstream: { url: agent.url } });
  const builds = { a: resolve(values.a!), b: resolve(values.b!) };
  const nodeArgs = (side: 'a' | 'b') => values[`${side}-node`].split(' ').filter(Boolean);
  const gateway = (side: 'a' | 'b') =>
    spawnChild(`gateway ${side}`, 'bench/gateway-process.mjs', [overrides(side)], { env: { BENCH_DIST: builds[side] }, nodeArgs: nodeArgs(side) });
  const gateways = { a: await gateway('a'), b: await gateway('b') };
  const samples: Record<'a' | 'b', Record<Measure, HopSample[]>> = {
    a: { blocking: [], facade: [], stream: [] },
    b: { blocking: [], facade: [], stream: [] },
  };
  // Warm-up: JIT both builds on every path before anything counts.
  for (const side of ['a', 'b'] as const) for (const what of measures) await measureHop(gateways[side], what, options);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const what of measures) {
      for (const side of order) samples[side][what].push(await measureHop(gateways[side], what, options));
    }
    process.stdout.write(`round ${r + 1}/${rounds} done\n`);
  }
  process.stdout.write(
    `\nA = ${builds.a}\nB = ${builds.b}\n\n| measure | A CPU µs | B CPU µs | B ÷ A | A rate | B rate |\n|---|---|---|---|---|---|\n`,
  );
  for (const what of measures) {
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
