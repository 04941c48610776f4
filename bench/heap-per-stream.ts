/**
 * Where an idle stream's memory goes: heap snapshots of a hop (the built gateway or the bare proxy)
 * before and after `--streams` idle streams are opened through it, diffed by object type and
 * constructor, per stream. With `--calls`, what a finished blocking call leaves behind instead (the
 * task the registry keeps, and whatever else outlives the call), per call. The bare proxy's figure is what one Node hop holding a caller socket and
 * an upstream connection costs at least; the gateway's rows above it are what it keeps in addition.
 *
 *   node --import tsx bench/heap-per-stream.ts [--hop gateway|proxy] [--lane v1|facade] [--streams 1000 | --calls 2] [--top 30] [--no-build]
 *   (--calls N: N seconds of blocking SendMessage at saturation; --lane facade: 0.2.5 message/stream on the
 *   gateway's POST /, against the proxy's 1.0 stream; BENCH_DIST=<build> measures another build, with --no-build)
 *
 * Snapshots go to a temporary folder and are deleted; a 1,000-stream snapshot of the gateway is ~80 MB.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { ask, killAll, REPO_ROOT, requestGc, spawnChild, type Child } from './lib/processes.js';
import { saturate } from './lib/load.js';
import { openIdleStream, type OpenStream } from './lib/sse.js';
import { V025_STREAM_HEADERS, V1_HEADERS, V1_STREAM_HEADERS, isV1Reply, sendMessageBody, streamBody, v025StreamBody } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    hop: { type: 'string', default: 'gateway' },
    lane: { type: 'string', default: 'v1' },
    streams: { type: 'string', default: '1000' },
    calls: { type: 'string' },
    top: { type: 'string', default: '30' },
    'no-build': { type: 'boolean', default: false },
  },
});
const callSeconds = values.calls === undefined ? undefined : Number(values.calls);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  count: number;
  bytes: number;
}

/** Self size and count per `type:name` of every node in a .heapsnapshot. */
function summarize(file: string): Map<string, Row> {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const { node_fields: fields, node_types: nodeTypes } = snapshot.snapshot.meta;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field)) as [number, number, number];
  const rows = new Map<string, Row>();
  const { nodes, strings } = snapshot;
  for (let i = 0; i < nodes.length; i += width) {
    const type = nodeTypes[0][nodes[i + typeAt]!]!;
    const name = type.includes('string') || type === 'code' || type === 'number' ? '' : strings[nodes[i + nameAt]!]!.slice(0, 60);
    const key = `${type}:${name}`;
    const row = rows.get(key) ?? { count: 0, bytes: 0 };
    row.count += 1;
    row.bytes += nodes[i + sizeAt]!;
    rows.set(key, row);
  }
  return rows;
}

async function snapshot(hop: Child): Promise<string> {
  await requestGc(hop);
  await sleep(500);
  const reply = await ask<{ path: string }>(hop, 'heap-snapshot', 'heap-snapshot', 120_000);
  if (!reply) throw new Error('no heap snapshot was written');
  return reply.path;
}

async function openMany(origin: string, target: number, into: OpenStream[]): Promise<void> {
  // The bare proxy only relays 1.0, so the facade lane is the gateway's alone.
  const facade = values.lane === 'facade' && values.hop !== 'proxy';
  const body = facade ? v025StreamBody('idle') : streamBody('idle');
  const headers = facade ? V025_STREAM_HEADERS : V1_STREAM_HEADERS;
  const worker = async () => {
    while (into.length < target) into.push(await openIdleStream(origin, { headers, body, timeoutMs: 15_000 }));
  };
  await Promise.all(Array.from({ length: 50 }, worker));
}

async function main(): Promise<void> {
  if (!values['no-build'] && values.hop === 'gateway') {
    if (spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
  }
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-heap-'));
  const streams: OpenStream[] = [];
  try {
    const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
    const nodeArgs = ['--expose-gc'];
    const env = { BENCH_HEAP_DIR: dir };
    const hop =
      values.hop === 'proxy'
        ? await spawnChild('bare proxy', 'bench/bare-proxy.ts', [agent.url, '1000000'], { nodeArgs, ipc: true, env })
        : await spawnChild('gateway', 'bench/gateway-process.mjs', [JSON.stringify({ upstream: { url: agent.url } })], {
            nodeArgs,
            ipc: true,
            env,
          });
    // Warm-up: the code of opening and closing a stream is compiled before the baseline.
    const warm: OpenStream[] = [];
    await openMany(hop.url, 50, warm);
    for (const stream of warm) stream.close();
    await sleep(500);
    const base = summarize(await snapshot(hop));
    let count = Number(values.streams);
    if (callSeconds === undefined) await openMany(hop.url, count, streams);
    else count = (await saturate({ origin: hop.url, headers: V1_HEADERS, body: sendMessageBody(), verify: isV1Reply }, 50, callSeconds)).total;
    await sleep(1_000);
    const loaded = summarize(await snapshot(hop));
    const rows = [...loaded].map(([key, row]) => {
      const was = base.get(key) ?? { count: 0, bytes: 0 };
      return { key, count: (row.count - was.count) / count, bytes: (row.bytes - was.bytes) / count };
    });
    rows.sort((a, b) => b.bytes - a.bytes);
    const total = rows.reduce((sum, row) => sum + row.bytes, 0);
    const unit = callSeconds === undefined ? 'idle stream' : 'finished call';
    const lane = callSeconds === undefined && values.hop !== 'proxy' ? ` (${values.lane})` : '';
    process.stdout.write(`${values.hop}${lane}: ${Math.round(total)} bytes of heap objects per ${unit} (${count})\n\n`);
    process.stdout.write(`| bytes per ${unit} | objects per ${unit} | type:constructor |\n|---|---|---|\n`);
    for (const row of rows.slice(0, Number(values.top))) {
      process.stdout.write(`| ${Math.round(row.bytes)} | ${row.count.toFixed(2)} | ${row.key} |\n`);
    }
  } finally {
    for (const stream of streams) stream.close();
    killAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
