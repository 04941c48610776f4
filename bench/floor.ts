/**
 * How far the gateway is from the floor of a translating Node hop. Runs the fast agent, the bare
 * proxy (bytes piped), the floor hop (floor-hop.ts: parse, check, re-serialise, relay, a Map as the
 * registry, nothing else), the same floor on Hono (floor-hono.ts, with `--middlewares` pass-through
 * middlewares, default 5: the gateway's count) and the built gateway side by side, and measures them alternately: each
 * hop's own CPU per blocking SendMessage, per 0.2.5 message/send (the proxy: its blocking SendMessage)
 * and per event of one long stream, and its rate.
 *
 *   node --import tsx bench/floor.ts [--rounds 4] [--seconds 3] [--chunks 10000] [--middlewares 5] [--no-build] [--out <name>]
 *
 * With --out, the samples, the medians and the table go to bench/results/<name>.json and .md.
 *
 * CPU per unit is the verdict (it does not depend on how much of the CPUs a run got); the rate
 * ratios are what the targets table reads, and move with the host.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { measureHop, type HopSample, type Measure } from './lib/hop-measure.js';
import { REPO_ROOT, killAll, spawnChild, type Child } from './lib/processes.js';
import { median, round } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '3' },
    chunks: { type: 'string', default: '10000' },
    'no-build': { type: 'boolean', default: false },
    out: { type: 'string' },
    middlewares: { type: 'string', default: '5' },
  },
});
const options = { seconds: Number(values.seconds), chunks: Number(values.chunks) };
const HOPS = ['proxy', 'floor', 'floorHono', 'gateway'] as const;
type Hop = (typeof HOPS)[number];
const MEASURES: Measure[] = ['blocking', 'facade', 'stream'];
/** The proxy has nothing to translate: a facade send is priced against its blocking SendMessage, as in the bench's facade scenario. */
const measureOf = (hop: Hop, what: Measure): Measure => (hop === 'proxy' && what === 'facade' ? 'blocking' : what);

async function main(): Promise<void> {
  if (!values['no-build']) execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const hops: Record<Hop, Child> = {
    proxy: await spawnChild('bare proxy', 'bench/bare-proxy.ts', [agent.url]),
    floor: await spawnChild('floor hop', 'bench/floor-hop.ts', [agent.url]),
    floorHono: await spawnChild('floor hop on Hono', 'bench/floor-hono.ts', [agent.url, '128', values.middlewares]),
    gateway: await spawnChild('gateway', 'bench/gateway-process.mjs', [JSON.stringify({ upstream: { url: agent.url } })]),
  };
  const samples: Record<Hop, Record<Measure, HopSample[]>> = {
    proxy: { blocking: [], facade: [], stream: [] },
    floor: { blocking: [], facade: [], stream: [] },
    floorHono: { blocking: [], facade: [], stream: [] },
    gateway: { blocking: [], facade: [], stream: [] },
  };
  for (const hop of HOPS) for (const what of MEASURES) await measureHop(hops[hop], measureOf(hop, what), { ...options, seconds: 1 });
  const rounds = Number(values.rounds);
  for (let r = 0; r < rounds; r++) {
    // Rotate the order so no hop always runs right after the same neighbour.
    const order = HOPS.map((_, i) => HOPS[(i + r) % HOPS.length]!);
    for (const what of MEASURES) {
      for (const hop of order) {
        const sample = await measureHop(hops[hop], measureOf(hop, what), options);
        if (sample.failed > 0) throw new Error(`${hop} ${what}: ${sample.failed} answers were not the agent's reply`);
        samples[hop][what].push(sample);
      }
    }
    process.stdout.write(`round ${r + 1}/${rounds} done\n`);
  }
  const cpu = (hop: Hop, what: Measure) => median(samples[hop][what].map((s) => s.cpuUs));
  const rate = (hop: Hop, what: Measure) => median(samples[hop][what].map((s) => s.rate));
  const rows = MEASURES.flatMap((what) =>
    HOPS.map((hop) => ({
      measure: what,
      hop,
      cpuUs: cpu(hop, what),
      cpuVsProxy: round(cpu(hop, what) / cpu('proxy', what)),
      rate: rate(hop, what),
      rateVsProxy: round(rate(hop, what) / rate('proxy', what)),
    })),
  );
  const table = [
    '| measure | hop | CPU µs per unit | ÷ proxy CPU | rate | ÷ proxy rate |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.measure} | ${row.hop} | ${row.cpuUs} | ${row.cpuVsProxy} | ${round(row.rate)} | ${row.rateVsProxy} |`),
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  if (values.out) {
    const base = path.join(REPO_ROOT, 'bench', 'results', values.out);
    const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadAverageAtEnd: os.loadavg() };
    writeFileSync(`${base}.json`, `${JSON.stringify({ options: { ...options, rounds }, machine, rows, samples }, null, 2)}\n`);
    writeFileSync(`${base}.md`, `# floor.ts, ${rounds} rounds of ${options.seconds} s (${machine.cpus} CPUs, Node ${machine.node})\n\n${table}\n`);
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
