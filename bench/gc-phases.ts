/**
 * What one young-generation GC of the gateway costs, phase by phase, at a fixed rate of blocking
 * SendMessage: on a fresh gateway, then once its registry holds `--fill` tasks. The gateway runs with
 * `--trace-gc-nvp`; every scavenge line of each window is averaged: the pause, its parallel copy phase,
 * the array-buffer sweep, and what survived and was promoted. Tells whether a pause is the work of what
 * survives (it then shrinks with what the gateway keeps) or a fixed cost per scavenge.
 *
 *   node --import tsx bench/gc-phases.ts [--dist dist] [--fill 100000] [--rate 1000] [--seconds 4]
 *        [--config JSON] [--node "--flag …"]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fixedRate, saturate } from './lib/load.js';
import { killAll, spawnChild } from './lib/processes.js';
import { median, round } from './lib/stats.js';
import { V1_HEADERS, isV1Reply, sendMessageBody } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    fill: { type: 'string', default: '100000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '4' },
    config: { type: 'string', default: '{}' },
    node: { type: 'string', default: '' },
  },
});

const FIELDS = ['pause', 'scavenge.parallel', 'scavenge.sweep_array_buffers', 'promoted', 'new_space_survived'] as const;
type Scavenge = Record<(typeof FIELDS)[number], number>;

/** The numbers of one `--trace-gc-nvp` scavenge line (`gc=s`), or undefined for any other line. */
function scavengeOf(line: string): Scavenge | undefined {
  if (!line.includes(' gc=s ')) return undefined;
  const fields = new Map(line.split(' ').map((pair) => pair.split('=') as [string, string]));
  return Object.fromEntries(FIELDS.map((name) => [name, Number(fields.get(name) ?? 0)])) as Scavenge;
}

async function main(): Promise<void> {
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const overrides = JSON.stringify({ ...JSON.parse(values.config), upstream: { url: agent.url } });
  const gateway = await spawnChild('gateway', 'bench/gateway-process.mjs', [overrides], {
    env: { BENCH_DIST: resolve(values.dist) },
    nodeArgs: ['--trace-gc-nvp', ...values.node.split(' ').filter(Boolean)],
  });
  let window: Scavenge[] | undefined;
  let pending = '';
  gateway.process.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const scavenge = window && scavengeOf(line);
      if (scavenge) window!.push(scavenge);
    }
  });
  const spec = { origin: gateway.url, headers: V1_HEADERS, body: sendMessageBody(), verify: isV1Reply };
  const measure = async (phase: string): Promise<string> => {
    window = [];
    const run = await fixedRate(spec, Number(values.rate), Number(values.seconds) * 1000);
    const seen = window;
    window = undefined;
    const mean = (name: (typeof FIELDS)[number]) => round(seen.reduce((sum, s) => sum + s[name], 0) / Math.max(seen.length, 1));
    const kb = (name: (typeof FIELDS)[number]) => round(mean(name) / 1024);
    const pauses = seen.map((s) => s.pause);
    return (
      `| ${phase} | ${run.latencyMs.p99} | ${seen.length} | ${mean('pause')} (${round(median(pauses))}, max ${Math.max(0, ...pauses)}) | ` +
      `${mean('scavenge.parallel')} | ${mean('scavenge.sweep_array_buffers')} | ${kb('new_space_survived')} | ${kb('promoted')} |`
    );
  };
  await saturate(spec, 50, 2); // warm-up
  const fresh = await measure('fresh');
  let sent = 0;
  while (sent < Number(values.fill)) sent += (await saturate(spec, 50, 2)).total;
  const full = await measure(`${sent} tasks kept`);
  process.stdout.write(
    `\n${values.rate} req/s for ${values.seconds} s, ${values.dist} ${values.config} ${values.node}\n\n` +
      '| registry | p99 ms | scavenges | pause ms, mean (median, max) | parallel copy ms | array-buffer sweep ms | survived KB | promoted KB |\n' +
      `|---|---|---|---|---|---|---|---|\n${fresh}\n${full}\n`,
  );
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
