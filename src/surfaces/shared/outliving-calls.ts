/**
 * Calls that run on after their caller left (`outlivesCaller`, operations.ts). No open request or gRPC
 * call shows them to the drain any more, so they are counted here, per shutdown signal: a shutdown gives
 * them the same drain time, then its signal ends them (and the upstream pool does not wait on them).
 */
interface InFlight {
  count: number;
  perCaller: Map<string, number>;
  idle: Array<() => void>;
}

/**
 * Calls one principal may have carried on at once. A caller that sends turns and hangs up on each would
 * otherwise leave any number running at the agent for up to `upstream.request-timeout-ms` (the cap on
 * turns in flight, `limits.*`, is off by default); past it, a call ends with its caller as reads do.
 */
export const MAX_OUTLIVING_PER_CALLER = 32;

const inFlight = new WeakMap<AbortSignal, InFlight>();
/** Where calls without a shutdown signal (an app used in process) are counted. */
const unbound = new AbortController().signal;

/**
 * Counts a call of `principal` that outlives its caller until the returned function is called (once is
 * enough); undefined when the principal has MAX_OUTLIVING_PER_CALLER such calls already: this one must end
 * with its caller.
 */
export function outlivingCall(shutdown: AbortSignal | undefined, principal: string): (() => void) | undefined {
  const key = shutdown ?? unbound;
  let calls = inFlight.get(key);
  if (!calls) inFlight.set(key, (calls = { count: 0, perCaller: new Map(), idle: [] }));
  const counted = calls;
  const mine = counted.perCaller.get(principal) ?? 0;
  if (mine >= MAX_OUTLIVING_PER_CALLER) return undefined;
  counted.perCaller.set(principal, mine + 1);
  counted.count++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    const left = (counted.perCaller.get(principal) ?? 1) - 1;
    if (left > 0) counted.perCaller.set(principal, left);
    else counted.perCaller.delete(principal);
    if (--counted.count === 0) for (const resolve of counted.idle.splice(0)) resolve();
  };
}

/** Resolves once no call counted under `shutdown` is in flight. */
export function outlivingCallsEnded(shutdown: AbortSignal): Promise<void> {
  const calls = inFlight.get(shutdown);
  if (!calls || calls.count === 0) return Promise.resolve();
  return new Promise((resolve) => calls.idle.push(resolve));
}
