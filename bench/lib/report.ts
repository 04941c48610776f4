/** Targets, the verdict per target, and the markdown printed at the end of a run. */
import type { ScenarioResult } from './context.js';
import { round } from './stats.js';

export interface TargetRow {
  target: string;
  /** Human-readable bound, e.g. `≥ 0.8×`. */
  bound: string;
  measured: string;
  verdict: string;
  met?: boolean;
  value?: number;
}

type Scenarios = Record<string, ScenarioResult | undefined>;

interface Spec {
  target: string;
  scenario: string;
  kind: 'min' | 'max';
  limit: number;
  unit: '×' | 'ms' | 'KiB';
  read(summary: Record<string, unknown>): number | undefined;
  /** Extra context shown next to the measured value. */
  detail?(summary: Record<string, unknown>): string;
}

/** A difference with its sign, e.g. `+0.31` or `-2.36`. */
const signed = (value: number | undefined): string => (value === undefined ? 'n/a' : `${value >= 0 ? '+' : ''}${value}`);

const us = (value: number | undefined): string => (value === undefined ? 'n/a' : `${value.toFixed(1)} µs`);
const times = (value: number | undefined): string => (value === undefined ? 'n/a' : `${value.toFixed(2)}×`);
const count = (value: number | undefined): string => (value === undefined ? 'n/a' : `${Math.round(value)}`);

/** Reads a nested number from a summary by a dotted path. */
function at(summary: Record<string, unknown>, path: string): number | undefined {
  let value: unknown = summary;
  for (const key of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Why a fixed-rate latency row reads as it does when some path has little headroom over the rate. */
function overloadWarning(summary: Record<string, unknown>): string {
  const short = Array.isArray(summary.shortOfHeadroom) ? (summary.shortOfHeadroom as string[]) : [];
  const reference = short.filter((path) => path !== 'gateway');
  if (reference.length > 0) return `; UNRELIABLE: ${reference.join(' and ')} saturate(s) near the rate`;
  if (short.includes('gateway')) return '; the gateway saturates near this rate, so this is mostly its queue';
  return '';
}

/** The hop's own CPU per request next to a throughput ratio: gateway process vs proxy process. */
const cpuDetail = (prefix: string) => (s: Record<string, unknown>) =>
  `CPU per request: gateway ${us(at(s, `${prefix}.gatewayUs`))}, proxy ${us(at(s, `${prefix}.proxyUs`))} (${times(at(s, `${prefix}.gatewayVsProxy`))}); ` +
  `load generator ${us(at(s, `${prefix}.harnessOnGatewayUs`))} on the gateway path, ${us(at(s, `${prefix}.harnessOnProxyUs`))} on the proxy path`;

const SPECS: Spec[] = [
  {
    target: 'Blocking throughput, small (gateway ÷ bare proxy)',
    scenario: 'blocking',
    kind: 'min',
    limit: 0.8,
    unit: '×',
    read: (s) => at(s, 'gatewayVsProxy.small'),
    detail: cpuDetail('cpuUsPerRequest.small'),
  },
  {
    target: 'Blocking throughput, 16 KiB (gateway ÷ bare proxy)',
    scenario: 'blocking',
    kind: 'min',
    limit: 0.8,
    unit: '×',
    read: (s) => at(s, 'gatewayVsProxy.16KiB'),
    detail: cpuDetail('cpuUsPerRequest.16KiB'),
  },
  {
    target: 'Facade message/send throughput (÷ bare proxy)',
    scenario: 'facade',
    kind: 'min',
    limit: 0.6,
    unit: '×',
    read: (s) => at(s, 'facadeVsProxy'),
    detail: cpuDetail('cpuUsPerRequest'),
  },
  {
    target: 'Added latency @1,000 req/s, mean (gateway − direct)',
    scenario: 'blocking',
    kind: 'max',
    limit: 0.6,
    unit: 'ms',
    read: (s) => at(s, 'addedMeanMs'),
    detail: (s) =>
      `bare proxy ${signed(at(s, 'proxyAddedMeanMs'))} ms${overloadWarning(s)}; at 250 req/s gateway ${signed(at(s, 'addedAt250.gatewayMeanMs'))} ms, proxy ${signed(at(s, 'addedAt250.proxyMeanMs'))} ms`,
  },
  {
    target: 'Added latency @1,000 req/s, p99 (gateway − direct)',
    scenario: 'blocking',
    kind: 'max',
    limit: 2,
    unit: 'ms',
    read: (s) => at(s, 'addedP99Ms'),
    detail: (s) =>
      `bare proxy ${signed(at(s, 'proxyAddedP99Ms'))} ms${overloadWarning(s)}; at 250 req/s gateway ${signed(at(s, 'addedAt250.gatewayP99Ms'))} ms, proxy ${signed(at(s, 'addedAt250.proxyP99Ms'))} ms; ` +
      `CPU per request @1,000/s: gateway ${us(at(s, 'cpuUsPerRequest.@1000.gatewayUs'))}, proxy ${us(at(s, 'cpuUsPerRequest.@1000.proxyUs'))}`,
  },
  {
    target: 'First event added, 1.0 stream (p50, gateway − direct)',
    scenario: 'streaming',
    kind: 'max',
    limit: 2,
    unit: 'ms',
    read: (s) => at(s, 'added.gateway.firstEventP50Ms'),
    detail: (s) => `p99 ${signed(at(s, 'added.gateway.firstEventP99Ms'))} ms; proxy ${signed(at(s, 'added.proxy.firstEventP50Ms'))} ms`,
  },
  {
    target: 'Added per-event latency p99, 1.0 stream',
    scenario: 'streaming',
    kind: 'max',
    limit: 1,
    unit: 'ms',
    read: (s) => at(s, 'added.gateway.perEventP99Ms'),
    detail: (s) => `p50 ${signed(at(s, 'added.gateway.perEventP50Ms'))} ms; proxy p99 ${signed(at(s, 'added.proxy.perEventP99Ms'))} ms`,
  },
  {
    target: 'Events per second, one 10,000-chunk 1.0 stream (gateway ÷ bare proxy)',
    scenario: 'streaming',
    kind: 'min',
    limit: 0.8,
    unit: '×',
    read: (s) => at(s, 'added.gateway.eventsPerSecondVsProxy'),
    detail: (s) =>
      `${count(at(s, 'lanes.gateway.eventsPerSecond'))} vs ${count(at(s, 'lanes.proxy.eventsPerSecond'))} ev/s; CPU per event: gateway ${us(at(s, 'lanes.gateway.hopCpuUsPerEvent'))}, ` +
      `proxy ${us(at(s, 'lanes.proxy.hopCpuUsPerEvent'))}; facade message/stream ${times(at(s, 'added.facade.eventsPerSecondVsProxy'))} (${us(at(s, 'lanes.facade.hopCpuUsPerEvent'))} per event)`,
  },
  {
    target: 'First event added, facade message/stream (p50)',
    scenario: 'streaming',
    kind: 'max',
    limit: 2,
    unit: 'ms',
    read: (s) => at(s, 'added.facade.firstEventP50Ms'),
  },
  {
    target: 'Added per-event latency p99, facade message/stream',
    scenario: 'streaming',
    kind: 'max',
    limit: 1,
    unit: 'ms',
    read: (s) => at(s, 'added.facade.perEventP99Ms'),
    detail: (s) => `p50 ${signed(at(s, 'added.facade.perEventP50Ms'))} ms (chunks are 1 ms apart)`,
  },
  {
    target: 'Gateway memory per idle stream (VmRSS delta)',
    scenario: 'concurrency',
    kind: 'max',
    limit: 20,
    unit: 'KiB',
    read: (s) => at(s, 'perStreamKiBAtTop'),
    detail: (s) =>
      `at ${at(s, 'topStillOpen')} streams; ${at(s, 'perStreamAfterGcKiBAtTop')} KiB after GC, of which live V8 heap ${at(s, 'heapPerStreamKiBAtTop')} KiB; ` +
      `bare proxy ${at(s, 'proxyPerStreamKiBAtTop')} KiB at ${at(s, 'proxyTopStillOpen')} streams (heap ${at(s, 'proxyHeapPerStreamKiBAtTop')} KiB)`,
  },
];

const fmt = (value: number, unit: Spec['unit']): string =>
  unit === '×' ? `${round(value).toFixed(2)}×` : `${round(value).toFixed(unit === 'KiB' ? 1 : 3)} ${unit}`;

function verdict(spec: Spec, value: number): { met: boolean; text: string } {
  const gap = spec.kind === 'min' ? value - spec.limit : spec.limit - value;
  const relative = spec.limit !== 0 ? Math.abs(gap / spec.limit) * 100 : 0;
  const amount = `${fmt(Math.abs(gap), spec.unit)} (${relative.toFixed(0)}%)`;
  return gap >= 0 ? { met: true, text: `met, margin ${amount}` } : { met: false, text: `**missed** by ${amount}` };
}

export function evaluateTargets(scenarios: Scenarios): TargetRow[] {
  return SPECS.map((spec) => {
    const bound = `${spec.kind === 'min' ? '≥' : '≤'} ${fmt(spec.limit, spec.unit)}`;
    const result = scenarios[spec.scenario];
    if (!result) return { target: spec.target, bound, measured: '—', verdict: 'not run' };
    if (result.status !== 'ok' || !result.summary) {
      return { target: spec.target, bound, measured: '—', verdict: `${result.status}: ${result.note ?? ''}`.trim() };
    }
    const value = spec.read(result.summary);
    if (value === undefined) return { target: spec.target, bound, measured: '—', verdict: `not measured${result.note ? `: ${result.note}` : ''}` };
    const { met, text } = verdict(spec, value);
    const detail = spec.detail?.(result.summary);
    return { target: spec.target, bound, measured: `${fmt(value, spec.unit)}${detail ? ` (${detail})` : ''}`, verdict: text, met, value };
  });
}

const escape = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function targetTable(rows: TargetRow[]): string {
  const lines = ['| Target | Bound | Measured | Verdict |', '|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${escape(row.target)} | ${row.bound} | ${escape(row.measured)} | ${escape(row.verdict)} |`);
  return lines.join('\n');
}

/** The raw medians behind the ratios, one line per scenario. */
export function numbersTable(scenarios: Scenarios): string {
  const lines = ['| Scenario | Numbers (medians over rounds) |', '|---|---|'];
  const s = (name: string) => (scenarios[name]?.status === 'ok' ? scenarios[name]?.summary : undefined);
  const json = (value: unknown) => escape(JSON.stringify(value));
  const blocking = s('blocking');
  if (blocking) {
    lines.push(`| blocking rps | ${json(blocking.rps)} |`);
    lines.push(`| blocking latency @1,000/s ms | ${json(blocking.latencyAt1000)} (generator lag p99 ${json(blocking.scheduleLagP99Ms)} ms) |`);
    lines.push(`| blocking latency @250/s ms | ${json(blocking.latencyAt250)} |`);
  }
  const facade = s('facade');
  if (facade) lines.push(`| facade rps | ${json(facade.rps)} |`);
  const streaming = s('streaming');
  if (streaming) lines.push(`| streaming per lane | ${json(streaming.lanes)} |`);
  const concurrency = s('concurrency');
  if (concurrency) {
    const levels = (scenarios.concurrency?.rounds ?? []) as Array<Record<string, unknown>>;
    const perLevel = levels.map(
      (l) =>
        `${json(l.stillOpen)}/${json(l.streams)}: ${json(l.perStreamKiB)} KiB/stream (${json(l.perStreamAfterGcKiB)} after GC, heap ${json(l.heapPerStreamKiB)}), ` +
        `/health p50 ${(l.healthMs as { p50: number }).p50} p99 ${(l.healthMs as { p99: number }).p99} ms`,
    );
    lines.push(
      `| idle streams | ${escape(perLevel.join('; '))}; /health p99 with none open ${(concurrency.healthBaselineMs as { p99: number }).p99} ms |`,
    );
  }
  const translation = s('translation');
  if (translation) lines.push(`| translation | ${json(translation)} |`);
  for (const [name, result] of Object.entries(scenarios)) {
    if (result && result.status !== 'ok') lines.push(`| ${name} | ${escape(`${result.status}: ${result.note ?? ''}`)} |`);
    else if (result?.note) lines.push(`| ${name} note | ${escape(result.note)} |`);
  }
  return lines.join('\n');
}
