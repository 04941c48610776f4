/**
 * Scenario 2: `message/send` through the Bailian 0.2.5 facade (gateway `POST /`), against 1.0
 * SendMessage direct and through the bare proxy: the proxy has nothing to translate, so the ratio
 * prices the whole facade (0.2.5 parse, translation both ways, registry) against one bare hop.
 */
import { probe, type BenchContext, type ScenarioResult } from '../lib/context.js';
import { hopCpu, metered, type CpuSample } from '../lib/cpu.js';
import { saturate, type RequestSpec, type SaturationResult } from '../lib/load.js';
import { median, round } from '../lib/stats.js';
import {
  PATHS,
  V025_HEADERS,
  V1_HEADERS,
  isV025Reply,
  isV1Reply,
  jsonRpcErrorCode,
  sendMessageBody,
  v025SendBody,
  type PathName,
} from '../lib/targets.js';

const METHOD_NOT_FOUND = -32601;

/** Why the facade cannot be measured (absent: skipped; broken: failed), or undefined when it answers. */
export async function facadeMissing(
  ctx: BenchContext,
  headers: Readonly<Record<string, string>>,
  body: string,
  isReply: (text: string) => boolean,
): Promise<Pick<ScenarioResult, 'status' | 'note'> | undefined> {
  const answer = await probe(ctx.targets.gateway.origin, headers, body);
  if (jsonRpcErrorCode(answer) === METHOD_NOT_FOUND) return { status: 'skipped', note: 'facade not available (the gateway answers -32601)' };
  if (!isReply(answer)) return { status: 'failed', note: `the facade answered something else: ${answer.slice(0, 200)}` };
  return undefined;
}

function spec(ctx: BenchContext, path: PathName): RequestSpec {
  if (path === 'gateway') return { origin: ctx.targets.gateway.origin, headers: V025_HEADERS, body: v025SendBody(), verify: isV025Reply };
  return { origin: ctx.targets[path].origin, headers: V1_HEADERS, body: sendMessageBody(), verify: isV1Reply };
}

export async function runFacade(ctx: BenchContext): Promise<ScenarioResult> {
  const missing = await facadeMissing(ctx, V025_HEADERS, v025SendBody(), isV025Reply);
  if (missing) return missing;

  const { timings } = ctx;
  await saturate(spec(ctx, 'gateway'), timings.connections, 1); // warm-up
  type Round = Record<PathName, SaturationResult> & { facadeVsProxy: number; facadeVsDirect: number; cpuUsPerRequest: Record<PathName, CpuSample> };
  const rounds: Round[] = [];
  for (let r = 0; r < timings.rounds; r++) {
    const perPath = {} as Record<PathName, SaturationResult>;
    const cpu = {} as Record<PathName, CpuSample>;
    for (const path of PATHS) {
      const run = await metered(
        ctx,
        () => saturate(spec(ctx, path), timings.connections, timings.saturationS),
        (x) => x.total,
      );
      perPath[path] = run.result;
      cpu[path] = run.cpuUs;
    }
    ctx.log(`  round ${r + 1}: ${PATHS.map((p) => `${p} ${Math.round(perPath[p].rps)} rps`).join(', ')} (gateway = message/send)`);
    rounds.push({
      ...perPath,
      facadeVsProxy: round(perPath.gateway.rps / perPath.proxy.rps),
      facadeVsDirect: round(perPath.gateway.rps / perPath.direct.rps),
      cpuUsPerRequest: cpu,
    });
  }
  const failed = rounds.reduce((sum, r) => sum + PATHS.reduce((s, p) => s + r[p].mismatches + r[p].errors + r[p].non2xx, 0), 0);
  const med = (pick: (r: Round) => number) => round(median(rounds.map(pick)));
  return {
    status: 'ok',
    ...(failed > 0 ? { note: `${failed} requests failed or answered something else (see rounds)` } : {}),
    rounds,
    summary: {
      rps: Object.fromEntries(PATHS.map((p) => [p, round(median(rounds.map((r) => r[p].rps)))])),
      facadeVsProxy: round(median(rounds.map((r) => r.facadeVsProxy))),
      facadeVsDirect: round(median(rounds.map((r) => r.facadeVsDirect))),
      cpuUsPerRequest: {
        proxyUs: med((r) => hopCpu('proxy', r.cpuUsPerRequest.proxy)),
        gatewayUs: med((r) => hopCpu('gateway', r.cpuUsPerRequest.gateway)),
        gatewayVsProxy: med((r) => hopCpu('gateway', r.cpuUsPerRequest.gateway) / hopCpu('proxy', r.cpuUsPerRequest.proxy)),
        harnessOnGatewayUs: med((r) => r.cpuUsPerRequest.gateway.harness),
        harnessOnProxyUs: med((r) => r.cpuUsPerRequest.proxy.harness),
      },
    },
  };
}
