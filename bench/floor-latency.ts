/**
 * The latency row of the targets against the floors: what each hop adds to a blocking SendMessage at
 * a fixed 1,000 req/s over going direct (mean and p99), for the bare proxy, the floor hop on plain
 * node:http, the same floor on Hono and the gateway, measured alternately round by round (the order
 * rotates) with the bench's open-loop generator, so a host that drifts hits every hop alike.
 *
 *   node --import tsx bench/floor-latency.ts [--rounds 5] [--seconds 5] [--rate 1000] [--no-build] [--out <name>]
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fixedRate, type RequestSpec } from './lib/load.js';
import { REPO_ROOT, killAll, spawnChild, type Child } from './lib/processes.js';
import { median, round } from './lib/stats.js';
import { V1_HEADERS, isV1Reply, sendMessageBody } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    rate: { type: 'string', default: '1000' },
    'no-build': { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const PATHS = ['direct', 'proxy', 'floor', 'floorHono', 'gateway'] as const;
type PathName = (typeof PATHS)[number];

async function main(): Promise<void> {
  if (!values['no-build']) execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const rate = Number(values.rate);
  const durationMs = Number(values.seconds) * 1000;
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const hops: Record<PathName, Child> = {
    direct: agent,
    proxy: await spawnChild('bare proxy', 'bench/bare-proxy.ts', [agent.url]),
    floor: await spawnChild('floor hop', 'bench/floor-hop.ts', [agent.url]),
    floorHono: await spawnChild('floor hop on Hono', 'bench/floor-hono.ts', [agent.url, '128', '5']),
    gateway: await spawnChild('gateway', 'bench/gateway-process.mjs', [JSON.stringify({ upstream: { url: agent.url } })]),
  };
  const spec = (hop: Child): RequestSpec => ({ origin: hop.url, headers: V1_HEADERS, body: sendMessageBody(), verify: isV1Reply });
  const samples: Record<PathName, Array<{ mean: number; p99: number }>> = { direct: [], proxy: [], floor: [], floorHono: [], gateway: [] };
  // Warm-up: every hop's JIT and pools, not counted.
  for (const name of PATHS) await fixedRate(spec(hops[name]), rate, 1_000);
  const rounds = Number(values.rounds);
  for (let r = 0; r < rounds; r++) {
    const order = PATHS.map((_, i) => PATHS[(i + r) % PATHS.length]!);
    for (const name of order) {
      const result = await fixedRate(spec(hops[name]), rate, durationMs);
      if (result.failed > 0) throw new Error(`${name}: ${result.failed} of ${result.sent} answers were not the agent's reply`);
      samples[name].push({ mean: result.latencyMs.mean, p99: result.latencyMs.p99 });
    }
    process.stdout.write(`round ${r + 1}/${rounds} done\n`);
  }
  const med = (name: PathName, key: 'mean' | 'p99') => median(samples[name].map((sample) => sample[key]));
  const rows = PATHS.filter((name) => name !== 'direct').map((name) => ({
    hop: name,
    meanMs: round(med(name, 'mean')),
    p99Ms: round(med(name, 'p99')),
    addedMeanMs: round(med(name, 'mean') - med('direct', 'mean')),
    addedP99Ms: round(med(name, 'p99') - med('direct', 'p99')),
  }));
  const table = [
    `| at ${rate} req/s (direct: mean ${round(med('direct', 'mean'))} ms, p99 ${round(med('direct', 'p99'))} ms) | mean ms | p99 ms | added mean (target ≤ 0.6) | added p99 (target ≤ 2) |`,
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.hop} | ${row.meanMs} | ${row.p99Ms} | ${row.addedMeanMs} | ${row.addedP99Ms} |`),
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  if (values.out) {
    const base = path.join(REPO_ROOT, 'bench', 'results', values.out);
    const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadAverageAtEnd: os.loadavg() };
    writeFileSync(`${base}.json`, `${JSON.stringify({ options: { rate, durationMs, rounds }, machine, rows, samples }, null, 2)}\n`);
    writeFileSync(
      `${base}.md`,
      `# floor-latency.ts, ${rounds} rounds of ${values.seconds} s at ${rate} req/s (${machine.cpus} CPUs, Node ${machine.node})\n\n${table}\n`,
    );
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
