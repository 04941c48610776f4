/**
 * Bytes allocated per call (the sampling heap profiler of diag-hooks.mjs, objects that young and old collections
 * freed kept) of one or more gateway builds, per call kind, and with `--redis-db` the Redis commands each call sends:
 *
 *   node --import tsx bench/bytes-per-send.ts --build <dist dir>[@JSON] [--build …] [--calls 2000]
 *        [--connections 4] [--rounds 2] [--only facade,facade-follow-up,blocking] [--top 0] [--redis-db <n>]
 *
 * Per round, per build, per kind: a fresh gateway in front of the fast agent, `--calls` calls of warm-up, then a
 * window of `--calls` calls at `--connections` at once, the profile's total divided by them. The builds alternate
 * within a round, so a host that gets busier weighs on each alike. `facade-follow-up` is a conversation's second
 * message (lib/follow-ups.ts): its conversations are opened before the window. `--top n` prints the n functions
 * that allocate most per call in each window. Two windows of one build have come out up to 0.8 KB apart per facade
 * send (fifty-seventh pass): read a difference under 1 KB as unresolved.
 *
 * `--redis-db n` runs every build with `store: redis` on that database of the Redis at 127.0.0.1:6379 (REDIS_URL's
 * host), each window under a key prefix of its own (deleted after it), and counts the commands the gateway sends
 * there during the window (MONITOR): what a replica pays Redis per call. The profile then also holds ioredis's work.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { Client } from 'undici';
import { call, followingUp, ready, type Prepared } from './lib/calls.js';
import { summarizeHeapProfile } from './lib/diag.js';
import { ask, killAll, spawnChild } from './lib/processes.js';
import { sendMessageBody, V025_HEADERS, V1_HEADERS, v025SendBody } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    build: { type: 'string', multiple: true, default: [] },
    calls: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
    only: { type: 'string', default: 'facade,facade-follow-up' },
    top: { type: 'string', default: '0' },
    'redis-db': { type: 'string' },
  },
});
if (values.build.length === 0) throw new Error('usage: bench/bytes-per-send.ts --build <dist dir>[@JSON] [--build …]');
const calls = Number(values.calls);
const connections = Number(values.connections);
const top = Number(values.top);
const redisDb = values['redis-db'] === undefined ? undefined : Number(values['redis-db']);
const redisHost = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

type Kind = 'facade' | 'facade-follow-up' | 'blocking';
const KINDS: Record<Kind, Prepared> = {
  facade: ready(call(V025_HEADERS, v025SendBody())),
  'facade-follow-up': followingUp(calls),
  blocking: ready(call(V1_HEADERS, sendMessageBody())),
};
const kinds = values.only.split(',').filter((name): name is Kind => name in KINDS);

/** `calls` calls over `connections` clients at once, each taking the next index. */
async function run(url: string, prepared: Prepared): Promise<void> {
  const clients = Array.from({ length: connections }, () => new Client(url));
  const load = await prepared(clients[0]!);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      for (let i = next++; i < calls; i = next++) await load(client, i);
    }),
  );
  await Promise.all(clients.map((client) => client.close()));
}

/**
 * The commands sent to `db` while `during` runs, by name: the gateway's own, and those its scripts ran (`lua`).
 * `redis-cli monitor`, not ioredis's: under other clients' traffic on the same server (tests on database 0) ioredis's
 * monitor lost its place in the replies and failed.
 */
async function redisCommands(db: number, during: () => Promise<void>): Promise<Record<string, number>> {
  const port = redisHost.port || '6379';
  const monitor = spawn('redis-cli', ['-h', redisHost.hostname, '-p', port, 'monitor'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const counts: Record<string, number> = {};
  let pending = '';
  const started = new Promise<void>((resolveStarted) => {
    monitor.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'OK') resolveStarted();
        // e.g. `1796663149.647259 [11 127.0.0.1:54246] "set" "key" …`, `… [11 lua] "GET" …`
        const match = /^\S+ \[(\d+) (\S+)\] "([^"]+)"/.exec(line);
        if (!match || Number(match[1]) !== db) continue;
        const name = match[2] === 'lua' ? 'lua' : match[3]!.toUpperCase();
        counts[name] = (counts[name] ?? 0) + 1;
      }
    });
  });
  try {
    await started;
    await during();
    // The monitor may print the window's last commands a moment after they ran.
    await new Promise((resolveLater) => setTimeout(resolveLater, 200));
  } finally {
    monitor.kill();
  }
  return counts;
}

/** What is left under `prefix` in `db`, deleted. */
async function clearPrefix(db: number, prefix: string): Promise<void> {
  const redis = new Redis({ host: redisHost.hostname, port: Number(redisHost.port || 6379), db });
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }))
      if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
  } finally {
    redis.disconnect();
  }
}

interface Window {
  bytes: number;
  commands?: Record<string, number>;
  functions: string[];
}

async function window(spec: string, kind: Kind, agentUrl: string, label: string): Promise<Window> {
  const at = spec.indexOf('@');
  const dir = resolve(at < 0 ? spec : spec.slice(0, at));
  const overrides = at < 0 ? {} : (JSON.parse(spec.slice(at + 1)) as Record<string, unknown>);
  const prefix = `bench-bytes-${process.pid}-${label}:`;
  const store = redisDb === undefined ? {} : { store: 'redis', 'redis-url': `redis://${redisHost.host}/${redisDb}`, 'redis-prefix': prefix };
  const profile = join(tmpdir(), `bench-bytes-${process.pid}-${label}.heapprofile`);
  const config = JSON.stringify({ ...overrides, ...store, upstream: { url: agentUrl } });
  const env = { BENCH_DIAG: '1', BENCH_HEAP_PROFILE: profile, BENCH_DIST: dir };
  const gateway = await spawnChild('gateway', 'bench/gateway-process.mjs', [config], { ipc: true, env });
  try {
    await run(gateway.url, KINDS[kind]);
    const opener = new Client(gateway.url);
    const load = await KINDS[kind](opener); // follow-ups' conversations opened before the window
    await opener.close();
    await ask(gateway, 'diag:start', 'diag:started');
    const measured = (): Promise<void> => run(gateway.url, async () => load);
    const commands = redisDb === undefined ? (await measured(), undefined) : await redisCommands(redisDb, measured);
    await ask(gateway, 'diag:stop', 'diag', 60_000);
    const { totalBytes, byFunction } = summarizeHeapProfile(profile, top);
    const functions = byFunction.map(({ name, bytes }) => `${Math.round(bytes / calls)} ${name}`);
    return { bytes: Math.round(totalBytes / calls), ...(commands ? { commands } : {}), functions };
  } finally {
    await gateway.stop();
    rmSync(profile, { force: true });
    if (redisDb !== undefined) await clearPrefix(redisDb, prefix);
  }
}

/** The gateway's commands per call (each a round trip unless pipelined), then the commands its scripts ran. */
const perCall = ({ lua = 0, ...commands }: Record<string, number>): string =>
  `${(Object.values(commands).reduce((a, b) => a + b, 0) / calls).toFixed(2)} (${Object.entries(commands)
    .sort((a, b) => b[1] - a[1])
    .map(([name, count]) => `${name} ${(count / calls).toFixed(2)}`)
    .join(', ')}), and ${(lua / calls).toFixed(2)} run by its scripts`;

async function main(): Promise<void> {
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const rows = new Map<string, string[]>();
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const kind of kinds) {
      for (const [b, spec] of values.build.entries()) {
        const result = await window(spec, kind, agent.url, `${round}-${kind}-${b}`);
        const shown = `${result.bytes.toLocaleString('en')}${result.commands ? ` B, Redis commands per call ${perCall(result.commands)}` : ''}`;
        process.stdout.write(`round ${round}, ${kind}, ${spec}: ${shown}\n${result.functions.map((line) => `    ${line}\n`).join('')}`);
        rows.set(`${kind} | ${spec}`, [...(rows.get(`${kind} | ${spec}`) ?? []), result.bytes.toLocaleString('en')]);
      }
    }
  }
  process.stdout.write(`\n| kind | build | bytes per call, by round |\n|---|---|---|\n`);
  for (const [key, cells] of rows) process.stdout.write(`| ${key} | ${cells.join(' · ')} |\n`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
