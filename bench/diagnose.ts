/**
 * `node --import tsx bench/diagnose.ts [--seconds 10] [--rate 1000] [--no-build]`: where the gateway's time goes at a fixed
 * 1,000 req/s of blocking SendMessage, and of the 0.2.5 facade's message/send, next to the bare proxy
 * under the same load. Per hop, windows
 * of the same length, each on a fresh, warmed-up process (one tool at a time, so none skews another):
 *   1. event-loop delay (monitorEventLoopDelay), GC counts and pauses (PerformanceObserver in the
 *      child, and --trace-gc lines on its stdout, which also give the bytes allocated), CPU time;
 *   2. the sampling heap profiler with freed objects kept: bytes allocated by function and source;
 *   3. the CPU profiler: main-thread self time by function and source;
 *   4. `strace -c -f` attached for the window, then for a saturation window: syscalls per request;
 *      then for one 10,000-chunk stream: syscalls per streamed event.
 * The gateway runs from dist/ (built first unless --no-build). Writes
 * bench/results/<date>-diagnose.json and prints a markdown summary. See bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import type { DiagReport } from './diag-hooks.mjs';
import { attachStrace, summarizeHeapProfile, watchTraceGc, type Allocations, type SyscallRow, type TraceGc } from './lib/diag.js';
import { summarizeProfile, type ProfileSummary } from './profile-summary.js';
import { fixedRate, saturate, type FixedRateResult } from './lib/load.js';
import { ask, cpuMsByThread, killAll, REPO_ROOT, spawnChild, type Child } from './lib/processes.js';
import { timedStream } from './lib/sse.js';
import {
  V025_HEADERS,
  V025_STREAM_HEADERS,
  V1_HEADERS,
  V1_STREAM_HEADERS,
  isV025Reply,
  isV1Reply,
  sendMessageBody,
  streamBody,
  v025SendBody,
  v025StreamBody,
} from './lib/targets.js';

/** The bare proxy and the gateway on 1.0 SendMessage; the gateway's 0.2.5 facade on message/send. */
type Hop = 'proxy' | 'gateway' | 'facade';
const HOPS: readonly Hop[] = ['proxy', 'gateway', 'facade'];

interface Syscalls {
  requests: number;
  totalPerRequest: number;
  perRequest: Array<SyscallRow & { perRequest: number }>;
}

interface HopReport {
  load: Pick<FixedRateResult, 'sent' | 'failed' | 'latencyMs'>;
  cpuUsPerRequest: number;
  /** CPU µs per request by thread name. */
  cpuUsPerRequestByThread: Record<string, number>;
  diag: DiagReport | undefined;
  traceGc: TraceGc;
  allocatedBytesPerRequest: number;
  heap: Allocations & { requests: number; heapProfile: string };
  cpuProfile: ProfileSummary & { requests: number; cpuProfile: string };
  strace: { atRate: Syscalls; saturated: Syscalls; perStreamEvent: Syscalls & { eventsPerSecond: number } };
}

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, rate: { type: 'string', default: '1000' }, 'no-build': { type: 'boolean', default: false } },
});
const SECONDS = Number(values.seconds);
const RATE = Number(values.rate);
const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
const log = (line: string) => process.stdout.write(`${line}\n`);
const r2 = (x: number) => Math.round(x * 100) / 100;
const STREAM_CHUNKS = 10_000;

async function spawnHop(hop: Hop, agentUrl: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const options = { ipc: true, env: { BENCH_DIAG: '1', ...env }, nodeArgs };
  return hop === 'proxy'
    ? spawnChild('bare proxy', 'bench/bare-proxy.ts', [agentUrl], options)
    : spawnChild('gateway', 'bench/gateway-process.mjs', [JSON.stringify({ upstream: { url: agentUrl } })], options);
}

const V1_SEND = sendMessageBody();
const V025_SEND = v025SendBody();
const spec = (hop: Hop, origin: string) =>
  hop === 'facade'
    ? { origin, headers: V025_HEADERS, body: V025_SEND, verify: isV025Reply }
    : { origin, headers: V1_HEADERS, body: V1_SEND, verify: isV1Reply };

async function warm(hop: Hop, child: Child): Promise<void> {
  await saturate(spec(hop, child.url), 50, 2);
  await fixedRate(spec(hop, child.url), RATE, 1_000);
}

/** One fixed-rate run on a fresh, warmed-up child, with the child's diagnostics around it. */
async function diagWindow(hop: Hop, agentUrl: string, env: Record<string, string>, nodeArgs: string[] = []) {
  const child = await spawnHop(hop, agentUrl, env, nodeArgs);
  try {
    const traceGc = watchTraceGc(child);
    await warm(hop, child);
    await ask(child, 'diag:start', 'diag:started');
    traceGc.open();
    const threads0 = cpuMsByThread(child.pid);
    const load = await fixedRate(spec(hop, child.url), RATE, SECONDS * 1000);
    const threads1 = cpuMsByThread(child.pid);
    const threads = Object.fromEntries(Object.entries(threads1).map(([name, ms]) => [name, r2(((ms - (threads0[name] ?? 0)) * 1000) / load.sent)]));
    const cpu = Object.values(threads1).reduce((a, b) => a + b, 0) - Object.values(threads0).reduce((a, b) => a + b, 0);
    const gc = traceGc.close();
    const diag = await ask<DiagReport>(child, 'diag:stop', 'diag', 60_000);
    return { load, cpu, threads, gc, diag };
  } finally {
    await child.stop();
  }
}

const syscalls = (rows: SyscallRow[], requests: number): Syscalls => ({
  requests,
  totalPerRequest: r2(rows.reduce((sum, row) => sum + row.calls, 0) / requests),
  perRequest: rows.map((row) => ({ ...row, perRequest: r2(row.calls / requests) })),
});

/** strace -c -f attached for one fixed-rate window, then for one saturation window. */
async function straceWindows(hop: Hop, agentUrl: string): Promise<HopReport['strace']> {
  const child = await spawnHop(hop, agentUrl, {});
  const file = path.join(os.tmpdir(), `bench-strace-${hop}-${process.pid}.txt`);
  try {
    await warm(hop, child);
    let strace = await attachStrace(child, file);
    const atRate = await fixedRate(spec(hop, child.url), RATE, SECONDS * 1000);
    const rateRows = await strace.stop();
    strace = await attachStrace(child, file);
    const saturated = await saturate(spec(hop, child.url), 50, SECONDS);
    const saturatedRows = await strace.stop();
    // One long stream (1.0 SendStreamingMessage; message/stream on the facade): syscalls per event.
    const client = new Client(child.url, { pipelining: 1, bodyTimeout: 120_000 });
    const stream = (chunks: number) =>
      timedStream(client, {
        headers: hop === 'facade' ? V025_STREAM_HEADERS : V1_STREAM_HEADERS,
        body: (hop === 'facade' ? v025StreamBody : streamBody)({ chunks, delayMs: 0 }),
        timeoutMs: 120_000,
        stamps: false,
      });
    await stream(2_000);
    strace = await attachStrace(child, file);
    const long = await stream(STREAM_CHUNKS);
    const streamRows = await strace.stop();
    await client.close();
    return {
      atRate: syscalls(rateRows, atRate.sent),
      saturated: syscalls(saturatedRows, saturated.total),
      perStreamEvent: { ...syscalls(streamRows, long.events), eventsPerSecond: Math.round(long.events / (long.spanMs / 1000)) },
    };
  } finally {
    await child.stop();
  }
}

async function measureHop(hop: Hop, agentUrl: string, stamp: string): Promise<HopReport> {
  const first = await diagWindow(hop, agentUrl, {}, ['--trace-gc']);
  log(
    `  ${hop}: ${first.load.sent} sent, ${first.load.failed} failed; loop delay p99 ${first.diag?.eventLoopDelayMs.p99} ms; GC ${JSON.stringify(first.diag?.gc)}`,
  );
  const heapProfile = path.join(RESULTS_DIR, `${stamp}-${hop}.heapprofile`);
  const second = await diagWindow(hop, agentUrl, { BENCH_HEAP_PROFILE: heapProfile });
  const cpuProfile = path.join(RESULTS_DIR, `${stamp}-${hop}.cpuprofile`);
  const third = await diagWindow(hop, agentUrl, { BENCH_CPU_PROFILE: cpuProfile });
  const strace = await straceWindows(hop, agentUrl);
  log(`  ${hop}: ${strace.atRate.totalPerRequest} syscalls/request at ${RATE}/s, ${strace.saturated.totalPerRequest} saturated`);
  return {
    load: { sent: first.load.sent, failed: first.load.failed, latencyMs: first.load.latencyMs },
    cpuUsPerRequest: r2((first.cpu * 1000) / first.load.sent),
    cpuUsPerRequestByThread: first.threads,
    diag: first.diag,
    traceGc: first.gc,
    allocatedBytesPerRequest: Math.round(first.gc.allocatedBytes / first.load.sent),
    heap: { ...summarizeHeapProfile(heapProfile), requests: second.load.sent, heapProfile: path.relative(REPO_ROOT, heapProfile) },
    cpuProfile: { ...summarizeProfile(cpuProfile, 30), requests: third.load.sent, cpuProfile: path.relative(REPO_ROOT, cpuProfile) },
    strace,
  };
}

function markdown(reports: Record<Hop, HopReport>): string {
  const hops = HOPS;
  const row = (label: string, pick: (r: HopReport) => unknown) => `| ${label} | ${hops.map((h) => String(pick(reports[h]))).join(' | ')} |`;
  const gcCount = (r: HopReport, kind: string) => r.diag?.gc[kind]?.count ?? 0;
  const gcMs = (r: HopReport) => Object.values(r.diag?.gc ?? {}).reduce((sum, k) => sum + k.totalMs, 0);
  const busyUs = (r: HopReport) => ((r.cpuProfile.totalMs - r.cpuProfile.idleMs) * 1000) / r.cpuProfile.requests;
  const lines = [
    `| at ${RATE} req/s for ${SECONDS} s | bare proxy | gateway (1.0 SendMessage) | facade (0.2.5 message/send) |`,
    '|---|---|---|---|',
    row('requests (failed)', (r) => `${r.load.sent} (${r.load.failed})`),
    row('latency p50 / p99 ms', (r) => `${r.load.latencyMs.p50} / ${r.load.latencyMs.p99}`),
    row('CPU µs per request (all threads)', (r) => r.cpuUsPerRequest),
    row('… of it on the main thread / on other threads (V8 GC helpers, libuv pool)', (r) => {
      const main = r.cpuUsPerRequestByThread.main ?? 0;
      return `${main} / ${r2(r.cpuUsPerRequest - main)}`;
    }),
    row('main-thread busy µs per request (CPU profile)', (r) => r2(busyUs(r))),
    row(
      'GC share of main-thread busy time (CPU profile)',
      (r) => `${r2((r.cpuProfile.gcMs / (r.cpuProfile.totalMs - r.cpuProfile.idleMs)) * 100)} %`,
    ),
    row(
      'event-loop delay mean / p99 / max ms',
      (r) => `${r.diag?.eventLoopDelayMs.mean} / ${r.diag?.eventLoopDelayMs.p99} / ${r.diag?.eventLoopDelayMs.max}`,
    ),
    row('GC: scavenges / mark-compacts (PerformanceObserver)', (r) => `${gcCount(r, 'scavenge')} / ${gcCount(r, 'markCompact')}`),
    row('GC pause total ms (share of the window)', (r) => `${r2(gcMs(r))} (${r2((gcMs(r) / (SECONDS * 1000)) * 100)} %)`),
    row('--trace-gc: scavenges / mark-compacts / pause ms', (r) => `${r.traceGc.scavenges} / ${r.traceGc.markCompacts} / ${r.traceGc.pauseMs}`),
    row('bytes allocated per request (--trace-gc heap deltas)', (r) => r.allocatedBytesPerRequest),
    row('bytes allocated per request (sampling heap profile)', (r) => Math.round(r.heap.totalBytes / r.heap.requests)),
    row(`syscalls per request at ${RATE}/s (strace -c -f)`, (r) => r.strace.atRate.totalPerRequest),
    row('syscalls per request at saturation, 50 connections', (r) => r.strace.saturated.totalPerRequest),
    row(
      `syscalls per event, one ${STREAM_CHUNKS}-chunk stream (ev/s under strace)`,
      (r) => `${r.strace.perStreamEvent.totalPerRequest} (${r.strace.perStreamEvent.eventsPerSecond})`,
    ),
  ];
  const top = (rows: Syscalls) =>
    rows.perRequest
      .slice(0, 10)
      .map((s) => `${s.syscall} ${s.perRequest}`)
      .join(', ');
  for (const hop of hops) {
    lines.push('', `${hop} syscalls per request at ${RATE}/s: ${top(reports[hop].strace.atRate)}`);
    lines.push(`${hop} syscalls per request saturated: ${top(reports[hop].strace.saturated)}`);
    lines.push(`${hop} syscalls per stream event: ${top(reports[hop].strace.perStreamEvent)}`);
  }
  for (const hop of hops) {
    const g = reports[hop];
    const perRequest = (bytes: number) => Math.round(bytes / g.heap.requests);
    lines.push('', `${hop} allocations by source (bytes per request, share):`, '');
    for (const entry of g.heap.bySource.slice(0, 12)) lines.push(`- ${perRequest(entry.bytes)} B (${entry.percent} %) ${entry.name}`);
    lines.push('', `${hop} allocations by function:`, '');
    for (const entry of g.heap.byFunction.slice(0, 20)) lines.push(`- ${perRequest(entry.bytes)} B (${entry.percent} %) ${entry.name}`);
    const us = (ms: number) => r2((ms * 1000) / g.cpuProfile.requests);
    lines.push('', `${hop} main-thread self time by source (µs per request, % of busy):`, '');
    for (const entry of g.cpuProfile.bySource.slice(0, 12)) lines.push(`- ${us(entry.selfMs)} µs (${entry.percent} %) ${entry.name}`);
    lines.push('', `${hop} main-thread self time by function:`, '');
    for (const entry of g.cpuProfile.byFunction.slice(0, 25)) lines.push(`- ${us(entry.selfMs)} µs (${entry.percent} %) ${entry.name}`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  if (!values['no-build']) {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  if (spawnSync('strace', ['-V']).status !== 0) throw new Error('strace is not installed (apt-get install strace)');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
  const startedAt = new Date();
  try {
    const reports = {} as Record<Hop, HopReport>;
    const stamp = `${startedAt.toISOString().slice(0, 10)}-diagnose`;
    for (const hop of HOPS) reports[hop] = await measureHop(hop, agent.url, stamp);
    const file = path.join(RESULTS_DIR, `${stamp}.json`);
    const loadAverage = os.loadavg().map((x) => Math.round(x * 100) / 100);
    writeFileSync(
      file,
      `${JSON.stringify({ startedAt, rate: RATE, seconds: SECONDS, node: process.version, cpus: os.cpus().length, loadAverage, reports }, null, 2)}\n`,
    );
    log(`\n${markdown(reports)}\n\nraw results: ${path.relative(REPO_ROOT, file)}`);
  } finally {
    await agent.stop();
    killAll();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`diagnose failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    killAll();
    process.exit(1);
  },
);
