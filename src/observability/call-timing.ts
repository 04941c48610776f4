import { AsyncLocalStorage } from 'node:async_hooks';

/** Time spent waiting on the upstream during one inbound request, summed over its upstream calls. */
export interface CallTiming {
  upstreamSeconds: number;
}

const storage = new AsyncLocalStorage<CallTiming>();

/** Runs one inbound request with its own timing record. */
export function withCallTiming<T>(timing: CallTiming, run: () => Promise<T>): Promise<T> {
  return storage.run(timing, run);
}

/** Adds an upstream call's duration to the current request's record (none outside a request). */
export function addUpstreamTime(seconds: number): void {
  const timing = storage.getStore();
  if (timing) timing.upstreamSeconds += seconds;
}
