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
 *        [--requests 1500] [--chunks 200] [--pace-ms 50] [--only blocking,facade,stream,facade-stream]
 *
 * `@JSON` lays config overrides over that build's gateway: one build twice, once with a feature off, is
 * an ablation (`--build dist --build 'dist@{"metrics":{"enabled":false}}'`).
 *
 * Each build runs alone in a gateway under `valgrind --tool=callgrind --instr-atstart=no` (about 50×
 * slower than natively: a few minutes per build), in front of the fast agent. Per measure, `--requests`
 * calls (or one stream) warm the JIT up uninstrumented, then the counters are zeroed, instrumentation is
 * switched on for the same number again, and the dump's total is divided by the calls (events). Every
 * thread of the gateway counts, its GC helpers included. The counts depend on `--requests`
 * (a registry holding more tasks costs the collector more): compare builds at the same settings only.
 * A short window is mostly one-time work (at 300 calls, 1.6 M of a blocking call's 2.8 M instructions),
 * which moves by a few per cent with code that V8 optimises at another moment: 1,500 calls by default.
 * The stream's chunks come `--pace-ms` apart (as a model's tokens do), far enough apart that each event
 * crosses the slowed-down gateway on its own (it needs some 15 ms per event under valgrind): sent back to
 * back they pile up in batches whose size, and with it the count per event, changed by up to a third from
 * run to run. Paced, two runs of one build agree within about 1 %; the count then includes what the
 * process does on its own during the pauses (timers, the event-loop delay monitor), the same for both
 * builds, so a ratio per event understates a change to the per-event work.
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
  },
});
if (values.build.length === 0) throw new Error('usage: bench/instructions.ts --build <dist dir> [--build <dist dir> …]');
const requests = Number(values.requests);
const chunks = Number(values.chunks);
const paceMs = Number(values['pace-ms']);

/** `stream` is one 1.0 SendStreamingMessage, `facade-stream` one 0.2.5 message/stream: counted per event. */
type Measure = 'blocking' | 'facade' | 'stream' | 'facade-stream';
const MEASURES: readonly Measure[] = ['blocking', 'facade', 'stream', 'facade-stream'];
const perEvent = (measure: Measure): boolean => measure === 'stream' || measure === 'facade-stream';
const measures = values.only.split(',').filter((name): name is Measure => (MEASURES as readonly string[]).includes(name));

/** One unit of load: a call whose answer is read whole; returns the events it carried (1 for a call). */
type Load = (client: Client) => Promise<number>;

const call =
  (headers: Readonly<Record<string, string>>, body: string): Load =>
  async (client) => {
    const answer = await client.request({ method: 'POST', path: '/', headers, body });
    const text = await answer.body.text();
    if (answer.statusCode !== 200 || !text.includes('"result"')) throw new Error(`unexpected answer ${answer.statusCode}: ${text.slice(0, 200)}`);
    return 1;
  };

const stream =
  (headers: Readonly<Record<string, string>>, body: string): Load =>
  async (client) => {
    const answer = await client.request({ method: 'POST', path: '/', headers, body });
    const text = await answer.body.text();
    return text.split('\n\n').filter((frame) => frame.startsWith('data:')).length;
  };

const LOADS: Record<Measure, { load: Load; times: number }> = {
  blocking: { load: call(V1_HEADERS, sendMessageBody()), times: requests },
  facade: { load: call(V025_HEADERS, v025SendBody()), times: requests },
  stream: { load: stream(V1_STREAM_HEADERS, streamBody({ chunks, delayMs: paceMs })), times: 1 },
  'facade-stream': { load: stream(V025_STREAM_HEADERS, v025StreamBody({ chunks, delayMs: paceMs })), times: 1 },
};

async function repeat(client: Client, measure: Measure): Promise<number> {
  const { load, times } = LOADS[measure];
  let units = 0;
  for (let i = 0; i < times; i++) units += await load(client);
  return units;
}

const control = (pid: number, ...args: string[]): void => {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
};

/** The total of the newest callgrind dump named `out.*`. */
function dumpedTotal(out: string): number {
  const dir = tmpdir();
  const prefix = `${out.slice(dir.length + 1)}.`;
  const newest = readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
    .at(-1);
  const total = newest ? /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, newest), 'utf8'))?.[1] : undefined;
  if (total === undefined) throw new Error(`no callgrind dump at ${out}.*`);
  return Number(total);
}

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
  const args = ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, 'bench/gateway-process.mjs', config];
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
      await repeat(client, measure);
      control(pid, '-z');
      control(pid, '-i', 'on');
      const units = await repeat(client, measure);
      control(pid, '-d', measure);
      control(pid, '-i', 'off');
      perUnit[measure] = dumpedTotal(out) / units;
      process.stdout.write(
        `  ${measure}: ${Math.round(perUnit[measure]).toLocaleString('en')} instructions per ${perEvent(measure) ? 'event' : 'call'}\n`,
      );
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
  process.stdout.write(`\n| build | ${measures.map((m) => `${m} (instructions per ${perEvent(m) ? 'event' : 'call'})`).join(' | ')} |\n`);
  process.stdout.write(`|---|${measures.map(() => '---').join('|')}|\n`);
  for (const { build, perUnit } of counts) {
    const cells = measures.map(
      (m) => `${Math.round(perUnit[m]).toLocaleString('en')}${build === first.build ? '' : ` (${(perUnit[m] / first.perUnit[m]).toFixed(3)}×)`}`,
    );
    process.stdout.write(`| ${build} | ${cells.join(' | ')} |\n`);
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
