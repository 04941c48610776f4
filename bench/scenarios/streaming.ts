/**
 * Scenario 3: streaming. Per round, lanes alternate (direct, proxy, gateway 1.0, gateway facade):
 *   - time to first event: sequential SendStreamingMessage calls of one chunk;
 *   - added latency per event: one stream of chunks 1 ms apart, client arrival − agent `t=` stamp;
 *   - events per second: one stream of 10,000 chunks sent back to back (the agent honours backpressure).
 * The facade lane (`message/stream` on the gateway) is compared with the same round's direct and proxy
 * 1.0 lanes; it is skipped while the gateway answers -32601.
 */
import { Client } from 'undici';
import type { BenchContext, ScenarioResult } from '../lib/context.js';
import { metered, type CpuSample } from '../lib/cpu.js';
import { timedStream, type StreamTiming } from '../lib/sse.js';
import { median, round, summarize, type Summary } from '../lib/stats.js';
import { PATHS, V025_STREAM_HEADERS, V1_STREAM_HEADERS, streamBody, v025StreamBody, type StreamShape } from '../lib/targets.js';
import { facadeMissing } from './facade.js';

type LaneName = 'direct' | 'proxy' | 'gateway' | 'facade';

interface Lane {
  name: LaneName;
  client: Client;
  headers: Readonly<Record<string, string>>;
  body(shape: StreamShape): string;
}

interface LaneRound {
  firstEventMs: Summary;
  perEventAddedMs: Summary;
  eventsPerSecond: number;
  longStreamEvents: number;
  /** CPU µs per event of every process over the long stream. */
  cpuUsPerEvent: CpuSample;
  errors: string[];
}

/** The process a lane's hop runs in. */
const HOP: Record<LaneName, keyof CpuSample> = { direct: 'agent', proxy: 'proxy', gateway: 'gateway', facade: 'gateway' };

const STREAM_TIMEOUT_MS = 60_000;

async function measureLane(lane: Lane, ctx: BenchContext): Promise<LaneRound> {
  const { timings } = ctx;
  const errors: string[] = [];
  const call = async (shape: StreamShape, stamps: boolean): Promise<StreamTiming> => {
    const timing = await timedStream(lane.client, { headers: lane.headers, body: lane.body(shape), timeoutMs: STREAM_TIMEOUT_MS, stamps });
    if (timing.error && errors.length < 5) errors.push(timing.error);
    return timing;
  };
  const firsts: number[] = [];
  for (let i = 0; i < timings.firstEventSamples; i++) firsts.push((await call({ chunks: 1, delayMs: 0 }, false)).firstEventMs);
  const paced = await call({ chunks: timings.perEventChunks, delayMs: 1 }, true);
  if (paced.addedMs.length < timings.perEventChunks * 0.9) errors.push(`paced stream: only ${paced.addedMs.length} stamped events`);
  const { result: long, cpuUs } = await metered(
    ctx,
    () => call({ chunks: timings.longStreamChunks, delayMs: 0 }, false),
    (t) => t.events,
  );
  if (long.events < timings.longStreamChunks) errors.push(`long stream: only ${long.events} events`);
  return {
    firstEventMs: summarize(firsts),
    perEventAddedMs: summarize(paced.addedMs),
    eventsPerSecond: round(long.events / (long.spanMs / 1000)),
    longStreamEvents: long.events,
    cpuUsPerEvent: cpuUs,
    errors,
  };
}

export async function runStreaming(ctx: BenchContext): Promise<ScenarioResult> {
  const v1 = (origin: string, name: LaneName): Lane => ({
    name,
    client: new Client(origin, { pipelining: 1, bodyTimeout: STREAM_TIMEOUT_MS }),
    headers: V1_STREAM_HEADERS,
    body: streamBody,
  });
  const lanes: Lane[] = PATHS.map((path) => v1(ctx.targets[path].origin, path));
  const streamReply = (text: string) => text.includes('data:') && !text.includes('"error"');
  const facadeNote = await facadeMissing(ctx, V025_STREAM_HEADERS, v025StreamBody({ chunks: 1, delayMs: 0 }), streamReply);
  if (!facadeNote) {
    lanes.push({
      name: 'facade',
      client: new Client(ctx.targets.gateway.origin, { pipelining: 1, bodyTimeout: STREAM_TIMEOUT_MS }),
      headers: V025_STREAM_HEADERS,
      body: v025StreamBody,
    });
  }

  try {
    // Warm-up of every lane (JIT, connections, card fetch) with a shortened run.
    const warm = { ...ctx, timings: { ...ctx.timings, firstEventSamples: 10, perEventChunks: 50, longStreamChunks: 2_000 } };
    for (const lane of lanes) await measureLane(lane, warm);

    const rounds: Array<Partial<Record<LaneName, LaneRound>>> = [];
    for (let r = 0; r < ctx.timings.rounds; r++) {
      const byLane: Partial<Record<LaneName, LaneRound>> = {};
      for (const lane of lanes) byLane[lane.name] = await measureLane(lane, ctx);
      rounds.push(byLane);
      ctx.log(
        `  round ${r + 1}: ` +
          lanes
            .map(
              (l) =>
                `${l.name} first ${byLane[l.name]!.firstEventMs.p50} ms, +${byLane[l.name]!.perEventAddedMs.p99} ms p99/event, ${Math.round(byLane[l.name]!.eventsPerSecond)} ev/s`,
            )
            .join('; '),
      );
    }

    const med = (lane: LaneName, pick: (x: LaneRound) => number) => round(median(rounds.map((r) => pick(r[lane]!))));
    const perLane = (lane: LaneName) => ({
      firstEventP50Ms: med(lane, (x) => x.firstEventMs.p50),
      firstEventP99Ms: med(lane, (x) => x.firstEventMs.p99),
      perEventP50Ms: med(lane, (x) => x.perEventAddedMs.p50),
      perEventP99Ms: med(lane, (x) => x.perEventAddedMs.p99),
      eventsPerSecond: med(lane, (x) => x.eventsPerSecond),
      hopCpuUsPerEvent: med(lane, (x) => x.cpuUsPerEvent[HOP[lane]]),
      harnessCpuUsPerEvent: med(lane, (x) => x.cpuUsPerEvent.harness),
    });
    // Added = lane − direct, taken round by round, then the median over rounds.
    const added = (lane: LaneName) => ({
      firstEventP50Ms: round(median(rounds.map((r) => r[lane]!.firstEventMs.p50 - r.direct!.firstEventMs.p50))),
      firstEventP99Ms: round(median(rounds.map((r) => r[lane]!.firstEventMs.p99 - r.direct!.firstEventMs.p99))),
      perEventP50Ms: round(median(rounds.map((r) => r[lane]!.perEventAddedMs.p50 - r.direct!.perEventAddedMs.p50))),
      perEventP99Ms: round(median(rounds.map((r) => r[lane]!.perEventAddedMs.p99 - r.direct!.perEventAddedMs.p99))),
      eventsPerSecondVsProxy: round(median(rounds.map((r) => r[lane]!.eventsPerSecond / r.proxy!.eventsPerSecond))),
      eventsPerSecondVsDirect: round(median(rounds.map((r) => r[lane]!.eventsPerSecond / r.direct!.eventsPerSecond))),
      hopCpuPerEventVsProxy: round(median(rounds.map((r) => r[lane]!.cpuUsPerEvent[HOP[lane]] / r.proxy!.cpuUsPerEvent.proxy))),
    });
    const names = lanes.map((l) => l.name);
    const errors = rounds.flatMap((r) => names.flatMap((n) => r[n]!.errors.map((e) => `${n}: ${e}`)));
    const notes = [
      ...(facadeNote ? [`facade lane ${facadeNote.status}: ${facadeNote.note}`] : []),
      ...(errors.length > 0 ? [`stream errors: ${errors.slice(0, 3).join(' | ')}`] : []),
    ];
    return {
      status: 'ok',
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
      rounds,
      summary: {
        lanes: Object.fromEntries(names.map((n) => [n, perLane(n)])),
        added: Object.fromEntries(names.filter((n) => n !== 'direct').map((n) => [n, added(n)])),
        facadeAvailable: !facadeNote,
      },
    };
  } finally {
    await Promise.all(lanes.map((lane) => lane.client.close().catch(() => undefined)));
  }
}
