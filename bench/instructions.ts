/**
 * Instructions per request (blocking SendMessage, facade message/send) and per event (one 1.0 stream)
 * of one or more gateway builds, counted by valgrind's callgrind: a count of executed instructions, not
 * of time, so it does not move with the host's load or with what else runs on the cores. Two runs of one
 * build agreed within about half a per cent in the passes that made it, but once by 5 % per facade send while
 * tests ran beside it (forty-second pass), where `ab.ts` (CPU time, two builds side by side) favoured
 * one side by 2–9 % on a shared host: run the builds in one invocation, and repeat a close result. It is the verdict on a hot-path change; CPU time and throughput
 * stay `ab.ts`'s and the full bench's to report.
 *
 *   node --import tsx bench/instructions.ts --build <dist dir>[@JSON] [--build <dist dir>[@JSON] …]
 *        [--requests 1500] [--chunks 200] [--pace-ms 50]
 *        [--only blocking,facade,facade-follow-up,stream,facade-stream] [--threads all|main]
 *
 * `facade-follow-up` is a conversation's second message (lib/follow-ups.ts): `--requests` conversations are opened
 * before each window, uninstrumented, and each window's calls follow them up. A follow-up continues its
 * conversation's task, so the registry holds as many tasks as `facade`'s does, after twice the calls. Whichever
 * measure runs first in a gateway counted about 100 k main-thread instructions more per send than it did second
 * (fifty-ninth pass): compare the two in separate invocations, or at the same place in one.
 *
 * `@JSON` lays config overrides over that build's gateway: one build twice, once with a feature off, is
 * an ablation (`--build dist --build 'dist@{"metrics":{"enabled":false}}'`).
 *
 * Each build runs alone in a gateway under `valgrind --tool=callgrind --instr-atstart=no` (about 50×
 * slower than natively: a few minutes per build), in front of the fast agent. Per measure, `--requests`
 * calls (or one stream) warm the JIT up uninstrumented, then the counters are zeroed, instrumentation is
 * switched on for the same number again, and the dump's total is divided by the calls (events). Every
 * thread of the gateway counts, its GC helpers included (`--threads all`, the default). The counts depend
 * on `--requests` (a registry holding more tasks costs the collector more): compare builds at the same
 * settings only.
 * A short window is mostly one-time work (at 300 calls, 1.6 M of a blocking call's 2.8 M instructions),
 * which moves by a few per cent with code that V8 optimises at another moment: 1,500 calls by default.
 * The stream's chunks come `--pace-ms` apart (as a model's tokens do), far enough apart that each event
 * crosses the slowed-down gateway on its own (it needs some 15 ms per event under valgrind): sent back to
 * back they pile up in batches whose size, and with it the count per event, changed by up to a third from
 * run to run. Paced, two runs of one build agree within about 1 %; the count then includes what the
 * process does on its own during the pauses (timers, the event-loop delay monitor), the same for both
 * builds, so a ratio per event understates a change to the per-event work.
 *
 * `--threads main` has callgrind count each thread apart (`--separate-threads=yes`) and reports the main
 * thread's count, the one that runs the JavaScript, with the total printed beside it. The other threads are
 * V8's optimizing compiler and the collector's helpers, whose work moves with the host: how much of it
 * falls into the window depends on when the cores were free. At a host load of 8–10 one build's total moved
 * by up to 17 % between runs while its main thread stayed within 2 % over four (fifty-seventh pass): on a
 * busy host, read the main thread. It does not see what a change costs off the thread: more allocation
 * also means more marking and sweeping by the helpers, and code optimised later or not at all shows only
 * through its slower main-thread path. Read the total beside it, and a change to allocation in bytes
 * (`diagnose.ts`). On a quiet host (load 2–4) it was no steadier than the total: at 300 calls, four runs of
 * one build gave 1.95–2.00 M main-thread instructions per facade send and 6.41–6.52 M in all.
 *
 * For builds of this gateway only: the count of a fresh process also holds the optimizing compiler's
 * background work and the collector's idle work, which differ between programs, so the bare proxy or the
 * floor hops counted this way did not give a ratio to trust (tried; see bench/README.md).
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { call, followingUp, ready, stream, type Load, type Prepared } from './lib/calls.js';
import { killAll, REPO_ROOT, spawnChild } from './lib/processes.js';
import {
  sendMessageBody,
  streamBody,
  V025_HEADERS,
  V025_STREAM_HEADERS,
  V1_HEADERS,
  V1_STREAM_HEADERS,
  v025SendBody,
  v025StreamBody,
} from './lib/targets.js';

const { values } = parseArgs({
  options: {
    build: { type: 'string', multiple: true, default: [] },
    requests: { type: 'string', default: '1500' },
    chunks: { type: 'string', default: '200' },
    'pace-ms': { type: 'string', default: '50' },
    only: { type: 'string', default: 'blocking,facade,stream' },
    threads: { type: 'string', default: 'all' },
  },
});
if (values.build.length === 0) throw new Error('usage: bench/instructions.ts --build <dist dir> [--build <dist dir> …]');
if (values.threads !== 'all' && values.threads !== 'main') throw new Error(`--threads is all or main, not ${values.threads}`);
/** `main` has callgrind count each thread apart and reports the main thread's count (the total is still printed). */
const mainThreadOnly = values.threads === 'main';
const requests = Number(values.requests);
const chunks = Number(values.chunks);
const paceMs = Number(values['pace-ms']);

/** `stream` is one 1.0 SendStreamingMessage, `facade-stream` one 0.2.5 message/stream: counted per event. */
type Measure = 'blocking' | 'facade' | 'facade-follow-up' | 'stream' | 'facade-stream';
const MEASURES: readonly Measure[] = ['blocking', 'facade', 'facade-follow-up', 'stream', 'facade-stream'];
const perEvent = (measure: Measure): boolean => measure === 'stream' || measure === 'facade-stream';
const measures = values.only.split(',').filter((name): name is Measure => (MEASURES as readonly string[]).includes(name));

const LOADS: Record<Measure, { prepared: Prepared; times: number }> = {
  blocking: { prepared: ready(call(V1_HEADERS, sendMessageBody())), times: requests },
  facade: { prepared: ready(call(V025_HEADERS, v025SendBody())), times: requests },
  'facade-follow-up': { prepared: followingUp(requests), times: requests },
  stream: { prepared: ready(stream(V1_STREAM_HEADERS, streamBody({ chunks, delayMs: paceMs }))), times: 1 },
  'facade-stream': { prepared: ready(stream(V025_STREAM_HEADERS, v025StreamBody({ chunks, delayMs: paceMs }))), times: 1 },
};

async function repeat(client: Client, measure: Measure, load: Load): Promise<number> {
  let units = 0;
  for (let i = 0; i < LOADS[measure].times; i++) units += await load(client, i);
  return units;
}

const control = (pid: number, ...args: string[]): void => {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
};

/** Instructions of one window: every thread's, and the main thread's when callgrind counted threads apart. */
interface Count {
  all: number;
  main?: number;
}

/**
 * The counts of the newest callgrind dump named `out.*`. A dump is one file `out.<dump>`, or with
 * `--separate-threads=yes` one file per thread, `out.<dump>-<thread>`, where thread 1 is the one that
 * started the process: Node's main thread, the one that runs the JavaScript.
 */
function dumpedCount(out: string): Count {
  const dir = tmpdir();
  const prefix = `${out.slice(dir.length + 1)}.`;
  const files = readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .map((name) => {
      const [dump, thread] = name.slice(prefix.length).split('-').map(Number);
      return { name, dump: dump!, thread };
    });
  if (files.length === 0) throw new Error(`no callgrind dump at ${out}.*`);
  const newest = Math.max(...files.map(({ dump }) => dump));
  const count: Count = { all: 0 };
  for (const { name, thread } of files.filter((file) => file.dump === newest)) {
    const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, name), 'utf8'))?.[1];
    if (total === undefined) throw new Error(`no total in the callgrind dump ${name}`);
    count.all += Number(total);
    if (thread === 1) count.main = Number(total);
  }
  if (mainThreadOnly && count.main === undefined) throw new Error(`no main thread's dump at ${out}.${newest}-01`);
  return count;
}

/** The count `--threads` asks for, per call (or event). */
const reported = (count: Count, units: number): number => (mainThreadOnly ? count.main! : count.all) / units;
const formatted = (instructions: number): string => Math.round(instructions).toLocaleString('en');
const unitOf = (measure: Measure): string => (perEvent(measure) ? 'event' : 'call');

/** `dir` or `dir@{…config overrides…}`. */
function buildSpec(spec: string): { dir: string; overrides: Record<string, unknown> } {
  const at = spec.indexOf('@');
  return at < 0
    ? { dir: resolve(spec), overrides: {} }
    : { dir: resolve(spec.slice(0, at)), overrides: JSON.parse(spec.slice(at + 1)) as Record<string, unknown> };
}

async function countBuild(spec: string, agentUrl: string): Promise<Record<Measure, number>> {
  const { dir: build, overrides } = buildSpec(spec);
  const out = join(tmpdir(), `a2a-bridge-callgrind-${process.pid}-${Date.now()}`);
  const config = JSON.stringify({ ...overrides, upstream: { url: agentUrl } });
  const threads = mainThreadOnly ? ['--separate-threads=yes'] : [];
  const args = [
    '--tool=callgrind',
    '--instr-atstart=no',
    ...threads,
    `--callgrind-out-file=${out}`,
    process.execPath,
    'bench/gateway-process.mjs',
    config,
  ];
  const gateway = spawn('valgrind', args, { cwd: REPO_ROOT, env: { ...process.env, BENCH_DIST: build }, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = gateway.pid!;
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      let stdout = '';
      gateway.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const ready = /READY (\S+)/.exec(stdout);
        if (ready) resolveUrl(ready[1]!);
      });
      gateway.once('exit', (code) => reject(new Error(`the gateway under valgrind exited (${code}) before READY`)));
    });
    const client = new Client(url);
    const perUnit = {} as Record<Measure, number>;
    for (const measure of measures) {
      const { prepared } = LOADS[measure];
      await repeat(client, measure, await prepared(client));
      const load = await prepared(client);
      control(pid, '-z');
      control(pid, '-i', 'on');
      const units = await repeat(client, measure, load);
      control(pid, '-d', measure);
      control(pid, '-i', 'off');
      const count = dumpedCount(out);
      perUnit[measure] = reported(count, units);
      const shown = mainThreadOnly
        ? `main thread ${formatted(perUnit[measure])}, all threads ${formatted(count.all / units)}`
        : formatted(perUnit[measure]);
      process.stdout.write(`  ${measure}: ${shown} instructions per ${unitOf(measure)}\n`);
    }
    await client.close();
    return perUnit;
  } finally {
    gateway.kill('SIGKILL');
    for (const name of readdirSync(tmpdir()).filter((file) => join(tmpdir(), file).startsWith(out))) rmSync(join(tmpdir(), name), { force: true });
  }
}

async function main(): Promise<void> {
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const counts: Array<{ build: string; perUnit: Record<Measure, number> }> = [];
  for (const build of values.build) {
    process.stdout.write(`${build}\n`);
    counts.push({ build, perUnit: await countBuild(build, agent.url) });
  }
  const first = counts[0]!;
  const whose = mainThreadOnly ? 'main-thread instructions' : 'instructions';
  process.stdout.write(`\n| build | ${measures.map((m) => `${m} (${whose} per ${unitOf(m)})`).join(' | ')} |\n`);
  process.stdout.write(`|---|${measures.map(() => '---').join('|')}|\n`);
  for (const { build, perUnit } of counts) {
    const cells = measures.map((m) => `${formatted(perUnit[m])}${build === first.build ? '' : ` (${(perUnit[m] / first.perUnit[m]).toFixed(3)}×)`}`);
    process.stdout.write(`| ${build} | ${cells.join(' | ')} |\n`);
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
