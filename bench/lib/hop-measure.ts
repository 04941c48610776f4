/**
 * One hop's own CPU per unit of work (all its threads, from /proc), measured around a saturating run
 * of blocking calls or one long stream: the measure of `ab.ts` (two gateway builds) and `floor.ts`
 * (the bare proxy, the floor of a translating hop and the gateway).
 */
import { Client } from 'undici';
import { saturate, type RequestSpec } from './load.js';
import { cpuMs, type Child } from './processes.js';
import { timedStream } from './sse.js';
import { round } from './stats.js';
import { V025_HEADERS, V1_HEADERS, V1_STREAM_HEADERS, isV025Reply, isV1Reply, sendMessageBody, streamBody, v025SendBody } from './targets.js';

/** `blocking`: 1.0 SendMessage; `facade`: 0.2.5 message/send (gateways only); `stream`: one long 1.0 stream. */
export type Measure = 'blocking' | 'facade' | 'stream';

export interface HopSample {
  /** The hop's CPU µs per request (blocking, facade) or per event (stream). */
  cpuUs: number;
  /** Requests or events per second. */
  rate: number;
  /** Answers that were not the agent's reply (errors, non-2xx, mismatches); a stream always counts 0. */
  failed: number;
}

export interface MeasureOptions {
  /** Length of a saturating run. */
  seconds: number;
  /** Chunks of the long stream. */
  chunks: number;
  /** Connections of a saturating run. */
  connections?: number;
}

async function cpuPer<T>(hop: Child, work: () => Promise<T>, units: (result: T) => number): Promise<{ cpuUs: number; result: T }> {
  const before = cpuMs(hop.pid);
  const result = await work();
  return { cpuUs: round(((cpuMs(hop.pid) - before) * 1000) / Math.max(units(result), 1)), result };
}

export async function measureHop(hop: Child, what: Measure, options: MeasureOptions): Promise<HopSample> {
  if (what === 'stream') {
    const client = new Client(hop.url);
    try {
      const { cpuUs, result } = await cpuPer(
        hop,
        () =>
          timedStream(client, {
            headers: V1_STREAM_HEADERS,
            body: streamBody({ chunks: options.chunks, delayMs: 0 }),
            timeoutMs: 60_000,
            stamps: false,
          }),
        (timing) => timing.events,
      );
      return { cpuUs, rate: round(result.events / (result.spanMs / 1000)), failed: 0 };
    } finally {
      await client.close();
    }
  }
  const spec: RequestSpec =
    what === 'blocking'
      ? { origin: hop.url, headers: V1_HEADERS, body: sendMessageBody(), verify: isV1Reply }
      : { origin: hop.url, headers: V025_HEADERS, body: v025SendBody(), verify: isV025Reply };
  const { cpuUs, result } = await cpuPer(
    hop,
    () => saturate(spec, options.connections ?? 50, options.seconds),
    (run) => run.total,
  );
  return { cpuUs, rate: result.rps, failed: result.mismatches + result.errors + result.non2xx };
}
