/**
 * Scenario 1: blocking SendMessage 1.0 → 1.0. Throughput at saturation (small and 16 KiB bodies)
 * and latency at a fixed 1,000 req/s (the target) and at a light 250 req/s (the hop's own cost when
 * nothing queues), direct / bare proxy / gateway alternating in every round.
 */
import { probe, type BenchContext, type ScenarioResult } from '../lib/context.js';
import { hopCpu, metered, type CpuSample } from '../lib/cpu.js';
import { fixedRate, saturate, type FixedRateResult, type SaturationResult } from '../lib/load.js';
import { median, round } from '../lib/stats.js';
import { PATHS, V1_HEADERS, isV1Reply, sendMessageBody, type PathName } from '../lib/targets.js';

const SIZES = [
  { name: 'small', body: sendMessageBody() },
  { name: '16KiB', body: sendMessageBody(16 * 1024) },
] as const;
const RATE = 1_000;
const LIGHT_RATE = 250;
/** Below this multiple of RATE at saturation, a path's fixed-rate latency is mostly queueing. */
const HEADROOM = 1.5;

type PerPath<T> = Record<PathName, T>;

interface Added {
  gatewayMean: number;
  gatewayP99: number;
  proxyMean: number;
  proxyP99: number;
}

interface Round {
  saturation: Record<string, PerPath<SaturationResult>>;
  /** Keyed by rate (req/s). */
  fixedRate: Record<string, PerPath<FixedRateResult>>;
  ratios: Record<string, { gatewayVsProxy: number; gatewayVsDirect: number; proxyVsDirect: number }>;
  /** Over direct, keyed by rate. */
  addedMs: Record<string, Added>;
  /** CPU µs per request of every process, per path, keyed by body size (saturation) and `@<rate>`. */
  cpuUsPerRequest: Record<string, PerPath<CpuSample>>;
}

function addedOver(fixed: PerPath<FixedRateResult>): Added {
  const direct = fixed.direct.latencyMs;
  return {
    gatewayMean: round(fixed.gateway.latencyMs.mean - direct.mean),
    gatewayP99: round(fixed.gateway.latencyMs.p99 - direct.p99),
    proxyMean: round(fixed.proxy.latencyMs.mean - direct.mean),
    proxyP99: round(fixed.proxy.latencyMs.p99 - direct.p99),
  };
}

async function measureRound(ctx: BenchContext, r: number): Promise<Round> {
  const { timings } = ctx;
  const saturation: Round['saturation'] = {};
  const cpuUsPerRequest: Round['cpuUsPerRequest'] = {};
  for (const size of SIZES) {
    const perPath = {} as PerPath<SaturationResult>;
    const cpu = {} as PerPath<CpuSample>;
    for (const path of PATHS) {
      const run = await metered(
        ctx,
        () => saturate(spec(ctx, path, size.body), timings.connections, timings.saturationS),
        (r) => r.total,
      );
      perPath[path] = run.result;
      cpu[path] = run.cpuUs;
    }
    saturation[size.name] = perPath;
    cpuUsPerRequest[size.name] = cpu;
    ctx.log(`  round ${r} ${size.name}: ${PATHS.map((p) => `${p} ${Math.round(perPath[p].rps)} rps`).join(', ')}`);
  }
  const fixed: Round['fixedRate'] = {};
  for (const rate of [RATE, LIGHT_RATE]) {
    const perPath = {} as PerPath<FixedRateResult>;
    const cpu = {} as PerPath<CpuSample>;
    for (const path of PATHS) {
      const run = await metered(
        ctx,
        () => fixedRate(spec(ctx, path, SIZES[0].body), rate, timings.fixedRateMs),
        (r) => r.sent,
      );
      perPath[path] = run.result;
      cpu[path] = run.cpuUs;
    }
    fixed[rate] = perPath;
    cpuUsPerRequest[`@${rate}`] = cpu;
    ctx.log(`  round ${r} @${rate}/s mean ms: ${PATHS.map((p) => `${p} ${perPath[p].latencyMs.mean}`).join(', ')}`);
  }
  const ratios: Round['ratios'] = {};
  for (const [name, perPath] of Object.entries(saturation)) {
    ratios[name] = {
      gatewayVsProxy: round(perPath.gateway.rps / perPath.proxy.rps),
      gatewayVsDirect: round(perPath.gateway.rps / perPath.direct.rps),
      proxyVsDirect: round(perPath.proxy.rps / perPath.direct.rps),
    };
  }
  const addedMs = Object.fromEntries(Object.entries(fixed).map(([rate, perPath]) => [rate, addedOver(perPath)]));
  return { saturation, fixedRate: fixed, ratios, addedMs, cpuUsPerRequest };
}

export async function runBlocking(ctx: BenchContext): Promise<ScenarioResult> {
  for (const path of PATHS) {
    const answer = await probe(ctx.targets[path].origin, V1_HEADERS, SIZES[0].body);
    if (!isV1Reply(answer)) return { status: 'failed', note: `${path} answered SendMessage with ${answer.slice(0, 200)}` };
  }
  // Warm-up: JIT, pools and the gateway's registry reach a steady state before anything counts.
  for (const path of PATHS) await saturate(spec(ctx, path, SIZES[0].body), ctx.timings.connections, 1);

  const rounds: Round[] = [];
  for (let r = 1; r <= ctx.timings.rounds; r++) rounds.push(await measureRound(ctx, r));

  const med = (pick: (round: Round) => number) => round(median(rounds.map(pick)));
  const failures = rounds.reduce((sum, r) => sum + failuresOf(r), 0);
  // A fixed rate near a path's own saturation measures its queue. For direct or the proxy that makes
  // the comparison meaningless; for the gateway it IS the finding (it cannot carry the rate).
  const saturatesAt = (p: PathName) => med((r) => r.saturation.small![p].rps);
  const short = PATHS.filter((p) => saturatesAt(p) < RATE * HEADROOM);
  const notes = [
    ...(failures > 0 ? [`${failures} requests failed or answered something else (see rounds)`] : []),
    ...short.map((p) => `${p} saturates at ${Math.round(saturatesAt(p))} rps (< ${HEADROOM}× ${RATE}): its latency @${RATE}/s is mostly queueing`),
  ];
  const latency = (rate: number) =>
    Object.fromEntries(
      PATHS.map((p) => [
        p,
        {
          mean: med((r) => r.fixedRate[rate]![p].latencyMs.mean),
          p50: med((r) => r.fixedRate[rate]![p].latencyMs.p50),
          p99: med((r) => r.fixedRate[rate]![p].latencyMs.p99),
        },
      ]),
    );
  return {
    status: 'ok',
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    rounds,
    summary: {
      rps: Object.fromEntries(
        SIZES.map((size) => [size.name, Object.fromEntries(PATHS.map((p) => [p, med((r) => r.saturation[size.name]![p].rps)]))]),
      ),
      gatewayVsProxy: Object.fromEntries(SIZES.map((size) => [size.name, med((r) => r.ratios[size.name]!.gatewayVsProxy)])),
      gatewayVsDirect: Object.fromEntries(SIZES.map((size) => [size.name, med((r) => r.ratios[size.name]!.gatewayVsDirect)])),
      proxyVsDirect: Object.fromEntries(SIZES.map((size) => [size.name, med((r) => r.ratios[size.name]!.proxyVsDirect)])),
      latencyAt1000: latency(RATE),
      latencyAt250: latency(LIGHT_RATE),
      addedMeanMs: med((r) => r.addedMs[RATE]!.gatewayMean),
      addedP99Ms: med((r) => r.addedMs[RATE]!.gatewayP99),
      proxyAddedMeanMs: med((r) => r.addedMs[RATE]!.proxyMean),
      proxyAddedP99Ms: med((r) => r.addedMs[RATE]!.proxyP99),
      addedAt250: {
        gatewayMeanMs: med((r) => r.addedMs[LIGHT_RATE]!.gatewayMean),
        gatewayP99Ms: med((r) => r.addedMs[LIGHT_RATE]!.gatewayP99),
        proxyMeanMs: med((r) => r.addedMs[LIGHT_RATE]!.proxyMean),
        proxyP99Ms: med((r) => r.addedMs[LIGHT_RATE]!.proxyP99),
      },
      /** Paths that saturate below HEADROOM × RATE; direct or proxy here make the latency rows unreliable. */
      shortOfHeadroom: short,
      scheduleLagP99Ms: med((r) => Math.max(...PATHS.map((p) => r.fixedRate[RATE]![p].scheduleLagMs.p99))),
      cpuUsPerRequest: Object.fromEntries(
        [...SIZES.map((size) => size.name), `@${RATE}`, `@${LIGHT_RATE}`].map((key) => [key, hopCpuSummary(rounds, key)]),
      ),
    },
  };
}

/**
 * The hop's own CPU per request (the proxy process on the proxy path, the gateway process on the
 * gateway path), the load generator's on the gateway path, and the gateway ÷ proxy ratio.
 */
function hopCpuSummary(rounds: Round[], key: string) {
  const med = (pick: (round: Round) => number) => round(median(rounds.map(pick)));
  return {
    proxyUs: med((r) => hopCpu('proxy', r.cpuUsPerRequest[key]!.proxy)),
    gatewayUs: med((r) => hopCpu('gateway', r.cpuUsPerRequest[key]!.gateway)),
    gatewayVsProxy: med((r) => hopCpu('gateway', r.cpuUsPerRequest[key]!.gateway) / hopCpu('proxy', r.cpuUsPerRequest[key]!.proxy)),
    agentUs: med((r) => r.cpuUsPerRequest[key]!.gateway.agent),
    harnessOnGatewayUs: med((r) => r.cpuUsPerRequest[key]!.gateway.harness),
    harnessOnProxyUs: med((r) => r.cpuUsPerRequest[key]!.proxy.harness),
  };
}

function spec(ctx: BenchContext, path: PathName, body: string) {
  return { origin: ctx.targets[path].origin, headers: V1_HEADERS, body, verify: isV1Reply };
}

/** Answers that did not count: errors, timeouts, non-2xx and bodies that were not the agent's reply. */
function failuresOf(r: Round): number {
  let count = 0;
  for (const path of PATHS) {
    for (const perPath of Object.values(r.fixedRate)) count += perPath[path].failed;
    for (const perPath of Object.values(r.saturation)) count += perPath[path].mismatches + perPath[path].errors + perPath[path].non2xx;
  }
  return count;
}
