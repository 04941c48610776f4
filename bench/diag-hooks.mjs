/**
 * Diagnostics a bench child process (gateway or bare proxy) runs inside itself, over IPC, so the
 * numbers cover exactly one load window:
 *   'diag:start'  starts an event-loop delay histogram and a GC observer, and optionally
 *                 BENCH_HEAP_PROFILE=<file>: the sampling heap profiler, with the objects that young and
 *                 old GCs freed kept in the profile (allocations, not only what survives);
 *                 BENCH_CPU_PROFILE=<file>: the CPU profiler;
 *   'diag:stop'   stops them, writes the profiles (DevTools formats) and answers
 *                 { type: 'diag', eventLoopDelayMs, gc, cpuUs }.
 * Off unless BENCH_DIAG=1: a plain run pays nothing.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';

const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'markCompact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incrementalMarking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakCallbacks',
};

const ms = (ns) => Math.round(ns / 1e3) / 1e3;
const RESOLUTION_MS = 1;

export function installDiagnostics() {
  if (process.env.BENCH_DIAG !== '1') return;
  let window;
  const heapFile = process.env.BENCH_HEAP_PROFILE;
  const cpuFile = process.env.BENCH_CPU_PROFILE;
  const session = heapFile || cpuFile ? new Session() : undefined;
  session?.connect();

  process.on('message', async (message) => {
    if (message === 'diag:start') {
      const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      const gc = {};
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          const kind = GC_KINDS[entry.detail?.kind] ?? `kind${entry.detail?.kind}`;
          const slot = (gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
          slot.count++;
          slot.totalMs += entry.duration;
          slot.maxMs = Math.max(slot.maxMs, entry.duration);
        }
      });
      observer.observe({ entryTypes: ['gc'] });
      if (heapFile) {
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 4096,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
      }
      if (cpuFile) {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      }
      delay.enable();
      window = { delay, gc, observer, cpu: process.cpuUsage() };
      process.send?.({ type: 'diag:started' });
      return;
    }
    if (message === 'diag:stop' && window) {
      const { delay, gc, observer, cpu } = window;
      delay.disable();
      const cpuUs = process.cpuUsage(cpu);
      observer.disconnect();
      if (cpuFile) writeFileSync(cpuFile, JSON.stringify((await session.post('Profiler.stop')).profile));
      if (heapFile) writeFileSync(heapFile, JSON.stringify((await session.post('HeapProfiler.stopSampling')).profile));
      for (const slot of Object.values(gc)) {
        slot.totalMs = Math.round(slot.totalMs * 1000) / 1000;
        slot.maxMs = Math.round(slot.maxMs * 1000) / 1000;
      }
      // Each sample is the time between two ticks of a 1 ms timer: the delay is what exceeds the 1 ms.
      const late = (ns) => ms(Math.max(0, ns - RESOLUTION_MS * 1e6));
      const eventLoopDelayMs = {
        mean: late(delay.mean),
        p50: late(delay.percentile(50)),
        p90: late(delay.percentile(90)),
        p99: late(delay.percentile(99)),
        max: late(delay.max),
        count: delay.count,
      };
      window = undefined;
      process.send?.({ type: 'diag', eventLoopDelayMs, gc, cpuUs });
    }
  });
}
