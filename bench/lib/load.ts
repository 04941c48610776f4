/** Load generators: autocannon at saturation, and an open-loop fixed-rate client with µs timing. */
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { nsToMs, round, summarize, type Summary } from './stats.js';

export interface RequestSpec {
  origin: string;
  path?: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  /** The answer is what the scenario expects (JSON-RPC errors are HTTP 200 too). */
  verify(body: string): boolean;
}

export interface SaturationResult {
  /** Verified answers per second. */
  rps: number;
  total: number;
  mismatches: number;
  errors: number;
  non2xx: number;
  durationS: number;
}

/** Closed-loop saturation with `connections` concurrent keep-alive connections for `durationS`. */
export async function saturate(spec: RequestSpec, connections: number, durationS: number): Promise<SaturationResult> {
  const result = await autocannon({
    url: `${spec.origin}${spec.path ?? '/'}`,
    method: 'POST',
    headers: { ...spec.headers },
    body: spec.body,
    connections,
    duration: durationS,
    timeout: 10,
    verifyBody: spec.verify,
  });
  const good = result['2xx'] - result.mismatches;
  return {
    rps: round(good / result.duration),
    total: result.requests.total,
    mismatches: result.mismatches,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    durationS: result.duration,
  };
}

export interface FixedRateResult {
  latencyMs: Summary;
  sent: number;
  failed: number;
  /** How late the generator fired against its schedule (its own precision), ms. */
  scheduleLagMs: Summary;
}

/**
 * Open loop: requests fire on a fixed schedule whether or not earlier ones have answered, so a slow
 * server shows up as latency instead of a lower send rate (no coordinated omission). Latency is
 * measured from the fire time with process.hrtime (autocannon's histogram only has 1 ms resolution
 * and its rate limiter sends each second's quota in a burst). Bounded by count and by time.
 */
export async function fixedRate(spec: RequestSpec, rate: number, durationMs: number, connections = 16): Promise<FixedRateResult> {
  const pool = new Pool(spec.origin, { connections, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const total = Math.round((rate * durationMs) / 1000);
  const interval = 1e9 / rate;
  const latencies: number[] = [];
  const lags: number[] = [];
  let failed = 0;
  let sent = 0;
  const pending = new Set<Promise<void>>();
  const start = process.hrtime.bigint();

  const fire = (scheduledNs: number) => {
    const firedAt = process.hrtime.bigint();
    lags.push(Math.max(0, Number(firedAt - start) - scheduledNs) / 1e6);
    const call = pool
      .request({ path: spec.path ?? '/', method: 'POST', headers: spec.headers, body: spec.body })
      .then(async (response) => {
        const text = await response.body.text();
        if (response.statusCode === 200 && spec.verify(text)) latencies.push(nsToMs(process.hrtime.bigint() - firedAt));
        else failed++;
      })
      .catch(() => {
        failed++;
      });
    pending.add(call);
    void call.finally(() => pending.delete(call));
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = Number(process.hrtime.bigint() - start);
      const due = Math.min(total, Math.floor(elapsed / interval) + 1);
      while (sent < due) fire(sent++ * interval);
      if (sent < total && elapsed < durationMs * 1e6 * 2) setTimeout(tick, 0);
      else resolve();
    };
    tick();
  });
  const drained = Promise.all(pending);
  const bound = new Promise((resolve) => setTimeout(resolve, 15_000).unref());
  await Promise.race([drained, bound]);
  await pool.destroy();
  // Anything without a verified answer counts as failed, including calls still open at the time bound.
  return { latencyMs: summarize(latencies), sent, failed: Math.max(failed, sent - latencies.length), scheduleLagMs: summarize(lags) };
}

/** Sequential GETs on one keep-alive connection; ms per answer. */
export async function sequentialGets(origin: string, path: string, count: number): Promise<Summary> {
  const pool = new Pool(origin, { connections: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const t0 = process.hrtime.bigint();
      const response = await pool.request({ path, method: 'GET' });
      await response.body.text();
      if (response.statusCode === 200) samples.push(nsToMs(process.hrtime.bigint() - t0));
    }
  } finally {
    await pool.destroy();
  }
  return summarize(samples);
}
