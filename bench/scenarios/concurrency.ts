/**
 * Scenario 4: many idle open streams through the gateway (SendStreamingMessage, agent idle mode:
 * the Task, then silence), each on its own connection. Levels are cumulative (1,000 → 5,000 →
 * 10,000). Per level: gateway VmRSS against the baseline (raw, and after a forced full GC), the
 * streams still open, and /health latency measured while they are all held open.
 *
 * Runs its own gateway process (fresh heap, --expose-gc) whose upstream pool allows one connection
 * per stream, then the same levels through its own bare proxy: what one Node hop holding two sockets
 * per stream costs at least, the floor under the gateway's figure. A last probe shows how many
 * concurrent streams the DEFAULT config lets through.
 */
import type { BenchContext, ScenarioResult } from '../lib/context.js';
import { sequentialGets } from '../lib/load.js';
import { openFileLimit, requestGc, rssKiB, spawnChild, type Child } from '../lib/processes.js';
import { openIdleStream, type OpenStream } from '../lib/sse.js';
import { round, type Summary } from '../lib/stats.js';
import { V1_STREAM_HEADERS, streamBody } from '../lib/targets.js';

const OPEN_CONCURRENCY = 200;
const OPEN_TIMEOUT_MS = 15_000;
const LEVEL_BOUND_MS = 180_000;
const FD_HEADROOM = 300;
const DEFAULT_POOL_PROBE = 160;
const IDLE_BODY = streamBody('idle');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Level {
  streams: number;
  opened: number;
  failedOpens: number;
  stillOpen: number;
  openSeconds: number;
  rssKiB: number;
  rssAfterGcKiB: number;
  perStreamKiB: number;
  perStreamAfterGcKiB: number;
  /** Live V8 heap per stream after a full GC: the JS objects a stream keeps. */
  heapPerStreamKiB: number;
  externalPerStreamKiB: number;
  healthMs: Summary;
}

/** Opens `count` idle streams, OPEN_CONCURRENCY at a time, until done or the time bound. */
async function openMany(origin: string, count: number, into: OpenStream[], timeoutMs = OPEN_TIMEOUT_MS): Promise<number> {
  let failed = 0;
  let next = 0;
  const deadline = Date.now() + LEVEL_BOUND_MS;
  const worker = async () => {
    while (next < count && Date.now() < deadline) {
      next++;
      try {
        into.push(await openIdleStream(origin, { headers: V1_STREAM_HEADERS, body: IDLE_BODY, timeoutMs }));
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, count) }, worker));
  return failed + (count - next);
}

interface Memory {
  raw: number;
  afterGc: number;
  /** V8 heap in use after the GC, KiB. */
  heapUsed: number;
  /** Memory of C++ objects bound to JS (buffers, sockets' JS side), KiB. */
  external: number;
}

async function settledMemory(gateway: Child): Promise<Memory> {
  await sleep(1_000);
  const raw = rssKiB(gateway.pid);
  const reply = await requestGc(gateway);
  await sleep(500);
  const kib = (bytes: number | undefined) => Math.round((bytes ?? Number.NaN) / 1024);
  return { raw, afterGc: rssKiB(gateway.pid), heapUsed: kib(reply?.memory.heapUsed), external: kib(reply?.memory.external) };
}

/** How many of DEFAULT_POOL_PROBE concurrent streams a default-config gateway lets through. */
async function defaultPoolProbe(agentUrl: string): Promise<{ attempted: number; reachedFirstEvent: number }> {
  const gateway = await spawnChild('gateway (defaults)', 'bench/gateway-process.mjs', [JSON.stringify({ upstream: { url: agentUrl } })]);
  const streams: OpenStream[] = [];
  try {
    await openMany(gateway.url, DEFAULT_POOL_PROBE, streams, 3_000);
    return { attempted: DEFAULT_POOL_PROBE, reachedFirstEvent: streams.length };
  } finally {
    for (const stream of streams) stream.close();
    await gateway.stop();
  }
}

/** Cumulative levels of idle streams held open through `hop`, memory per stream against its baseline. */
async function measureLevels(
  ctx: BenchContext,
  hop: Child,
  levels: number[],
  notes: string[],
): Promise<{ results: Level[]; baseline: Memory; healthBaseline: Summary }> {
  const streams: OpenStream[] = [];
  const results: Level[] = [];
  try {
    // Warm-up: code paths of opening and closing streams are compiled before the baseline.
    const warm: OpenStream[] = [];
    await openMany(hop.url, 50, warm);
    for (const stream of warm) stream.close();
    await sequentialGets(hop.url, '/health', 100);
    const baseline = await settledMemory(hop);
    const healthBaseline = await sequentialGets(hop.url, '/health', 300);
    ctx.log(`  ${hop.name}: baseline RSS ${baseline.raw} KiB (${baseline.afterGc} KiB after GC), /health p50 ${healthBaseline.p50} ms`);

    for (const level of levels) {
      const started = Date.now();
      const failedOpens = await openMany(hop.url, level - streams.length, streams);
      const openSeconds = (Date.now() - started) / 1000;
      const healthMs = await sequentialGets(hop.url, '/health', 300);
      const rss = await settledMemory(hop);
      const stillOpen = streams.filter((stream) => stream.isOpen()).length;
      const entry: Level = {
        streams: level,
        opened: streams.length,
        failedOpens,
        stillOpen,
        openSeconds: round(openSeconds),
        rssKiB: rss.raw,
        rssAfterGcKiB: rss.afterGc,
        perStreamKiB: round((rss.raw - baseline.raw) / Math.max(stillOpen, 1)),
        perStreamAfterGcKiB: round((rss.afterGc - baseline.afterGc) / Math.max(stillOpen, 1)),
        heapPerStreamKiB: round((rss.heapUsed - baseline.heapUsed) / Math.max(stillOpen, 1)),
        externalPerStreamKiB: round((rss.external - baseline.external) / Math.max(stillOpen, 1)),
        healthMs,
      };
      results.push(entry);
      ctx.log(
        `  ${hop.name}: ${stillOpen}/${level} streams open (${failedOpens} failed, ${entry.openSeconds} s): ${entry.perStreamKiB} KiB/stream ` +
          `(${entry.perStreamAfterGcKiB} after GC; live heap ${entry.heapPerStreamKiB}, external ${entry.externalPerStreamKiB}), /health p50 ${healthMs.p50} ms p99 ${healthMs.p99} ms`,
      );
      if (stillOpen < level * 0.95) {
        notes.push(`${hop.name}: only ${stillOpen} of ${level} streams could be held open; stopped there`);
        break;
      }
    }
    return { results, baseline, healthBaseline };
  } finally {
    for (const stream of streams) stream.close();
  }
}

export async function runConcurrency(ctx: BenchContext): Promise<ScenarioResult> {
  const notes: string[] = [];
  const fdLimit = openFileLimit();
  // Each hop holds two sockets per stream (caller side and upstream side); the harness and the agent one each.
  const cap = Math.floor((fdLimit - FD_HEADROOM) / 2);
  const levels = [...new Set(ctx.timings.idleLevels.map((level) => Math.min(level, cap)))];
  if (ctx.timings.idleLevels.some((level) => level > cap)) {
    notes.push(
      `open-files limit is ${fdLimit} (ulimit -n; raising it was not permitted here): a hop needs 2 fds per stream, ` +
        `so the top level is capped at ${cap} streams instead of ${Math.max(...ctx.timings.idleLevels)}`,
    );
  }

  // The default config: upstream.connections unset is no cap (a cap, even a huge one, turns on the connection-wait
  // bound, which keeps each request's response headers and a timer for its life: ~2 KB per open stream).
  const gateway = await spawnChild('gateway (concurrency)', 'bench/gateway-process.mjs', [JSON.stringify({ upstream: { url: ctx.agent.url } })], {
    nodeArgs: ['--expose-gc'],
    ipc: true,
  });
  let measured: Awaited<ReturnType<typeof measureLevels>>;
  try {
    measured = await measureLevels(ctx, gateway, levels, notes);
  } finally {
    await gateway.stop();
  }
  const { results, baseline, healthBaseline } = measured;
  const top = results[results.length - 1];

  const proxy = await spawnChild('bare proxy (concurrency)', 'bench/bare-proxy.ts', [ctx.agent.url, '1000000'], {
    nodeArgs: ['--expose-gc'],
    ipc: true,
  });
  let proxyTop: Level | undefined;
  try {
    proxyTop = (await measureLevels(ctx, proxy, levels, notes)).results.at(-1);
  } finally {
    await proxy.stop();
  }

  const probe = await defaultPoolProbe(ctx.agent.url);
  ctx.log(`  default config: ${probe.reachedFirstEvent}/${probe.attempted} concurrent streams reached their first event within 3 s`);
  if (probe.reachedFirstEvent < probe.attempted) {
    notes.push(
      `with the default config only ${probe.reachedFirstEvent} of ${probe.attempted} concurrent streams get through; ` +
        'the rest wait for a pooled connection (check upstream.connections)',
    );
  }
  return {
    status: 'ok',
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    rounds: results,
    summary: {
      fdLimit,
      baselineRssKiB: baseline.raw,
      baselineRssAfterGcKiB: baseline.afterGc,
      healthBaselineMs: healthBaseline,
      topLevel: top?.streams,
      topStillOpen: top?.stillOpen,
      perStreamKiBAtTop: top?.perStreamKiB,
      perStreamAfterGcKiBAtTop: top?.perStreamAfterGcKiB,
      heapPerStreamKiBAtTop: top?.heapPerStreamKiB,
      healthAtTopMs: top?.healthMs,
      proxyTopStillOpen: proxyTop?.stillOpen,
      proxyPerStreamKiBAtTop: proxyTop?.perStreamKiB,
      proxyHeapPerStreamKiBAtTop: proxyTop?.heapPerStreamKiB,
      defaultPoolProbe: probe,
    },
  };
}
