/**
 * Calls that run on after their caller left (`outlivesCaller`, operations.ts). No open request or gRPC
 * call shows them to the drain any more, so they are counted here, per shutdown signal: a shutdown gives
 * them the same drain time, then its signal ends them (and the upstream pool does not wait on them).
 */
interface InFlight {
  count: number;
  idle: Array<() => void>;
}

const inFlight = new WeakMap<AbortSignal, InFlight>();
const nothing = (): void => undefined;

/** Counts a call that outlives its caller until the returned function is called (once is enough). */
export function outlivingCall(shutdown: AbortSignal | undefined): () => void {
  if (!shutdown) return nothing;
  let calls = inFlight.get(shutdown);
  if (!calls) inFlight.set(shutdown, (calls = { count: 0, idle: [] }));
  const counted = calls;
  counted.count++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--counted.count === 0) for (const resolve of counted.idle.splice(0)) resolve();
  };
}

/** Resolves once no call counted under `shutdown` is in flight. */
export function outlivingCallsEnded(shutdown: AbortSignal): Promise<void> {
  const calls = inFlight.get(shutdown);
  if (!calls || calls.count === 0) return Promise.resolve();
  return new Promise((resolve) => calls.idle.push(resolve));
}
