/**
 * CPU time per request of every process in the run: the agent, the bare proxy, the gateway and the
 * harness (load generator) itself. Read next to the throughput ratios, so that a change which only
 * moves work out of the gateway into the client or the agent cannot look like a win.
 */
import type { Child } from './processes.js';
import { cpuMs } from './processes.js';

export interface CpuProcesses {
  agent: Child;
  proxy: Child;
  gateway: Child;
}

/** CPU ms per process (or, from perUnit, µs per request or event). */
export interface CpuSample {
  agent: number;
  proxy: number;
  gateway: number;
  harness: number;
}

export function cpuNow(processes: CpuProcesses): CpuSample {
  const harness = process.cpuUsage();
  return {
    agent: cpuMs(processes.agent.pid),
    proxy: cpuMs(processes.proxy.pid),
    gateway: cpuMs(processes.gateway.pid),
    harness: (harness.user + harness.system) / 1000,
  };
}

/** CPU ms used since `before`. */
export function cpuSince(processes: CpuProcesses, before: CpuSample): CpuSample {
  const now = cpuNow(processes);
  return {
    agent: now.agent - before.agent,
    proxy: now.proxy - before.proxy,
    gateway: now.gateway - before.gateway,
    harness: now.harness - before.harness,
  };
}

/** µs of CPU per unit (request, event) for each process. */
export function perUnit(used: CpuSample, units: number): CpuSample {
  const us = (ms: number) => Math.round((ms * 10_000) / Math.max(units, 1)) / 10;
  return { agent: us(used.agent), proxy: us(used.proxy), gateway: us(used.gateway), harness: us(used.harness) };
}

/** Runs `work` and returns its result with the CPU µs per unit it cost every process. */
export async function metered<T>(
  processes: CpuProcesses,
  work: () => Promise<T>,
  units: (result: T) => number,
): Promise<{ result: T; cpuUs: CpuSample }> {
  const before = cpuNow(processes);
  const result = await work();
  return { result, cpuUs: perUnit(cpuSince(processes, before), units(result)) };
}

/** The process that serves a path: its hop's own CPU (the agent's is the same on every path). */
export function hopCpu(path: 'direct' | 'proxy' | 'gateway', cpuUs: CpuSample): number {
  return path === 'direct' ? cpuUs.agent : cpuUs[path];
}
