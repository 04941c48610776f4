/** What every scenario receives, and what it hands back. */
import { request } from 'undici';
import type { CpuSample } from './cpu.js';
import type { Child } from './processes.js';
import type { PathName, Target } from './targets.js';

export interface Timings {
  rounds: number;
  /** autocannon run per path and round, seconds. */
  saturationS: number;
  /** fixed-rate run per path and round, ms. */
  fixedRateMs: number;
  connections: number;
  firstEventSamples: number;
  perEventChunks: number;
  longStreamChunks: number;
  idleLevels: number[];
  translationEvents: number;
}

export const QUICK: Timings = {
  rounds: 2,
  saturationS: 1.5,
  fixedRateMs: 1_000,
  connections: 50,
  firstEventSamples: 60,
  perEventChunks: 150,
  longStreamChunks: 10_000,
  idleLevels: [1_000],
  translationEvents: 20_000,
};

export const FULL: Timings = {
  rounds: 4,
  saturationS: 4,
  fixedRateMs: 4_000,
  connections: 50,
  firstEventSamples: 200,
  perEventChunks: 500,
  longStreamChunks: 10_000,
  idleLevels: [1_000, 5_000, 10_000],
  translationEvents: 100_000,
};

export interface BenchContext {
  timings: Timings;
  targets: Record<PathName, Target>;
  agent: Child;
  proxy: Child;
  gateway: Child;
  log(line: string): void;
}

export interface ScenarioResult {
  status: 'ok' | 'skipped' | 'failed';
  note?: string;
  /** Raw numbers, one entry per round (each with every path of that round). */
  rounds?: unknown[];
  /** Medians over the rounds and other derived numbers the targets read. */
  summary?: Record<string, unknown>;
  /** CPU ms each process used over the whole scenario (warm-up included), set by the harness. */
  cpuMs?: CpuSample;
}

export type Scenario = (ctx: BenchContext) => Promise<ScenarioResult>;

/** One POST, for probing what a path answers before loading it. */
export async function probe(origin: string, headers: Readonly<Record<string, string>>, body: string): Promise<string> {
  const response = await request(`${origin}/`, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return response.body.text();
}
