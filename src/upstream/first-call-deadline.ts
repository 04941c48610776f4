import type { CallContext } from '../core/agent-port.js';
import { withFields } from '../model/index.js';
import { timedSignal } from '../timed-signal.js';
import { connectionTimedOut } from './upstream-errors.js';

export interface CallDeadline {
  /** The call's context, its signal aborted by the caller's or at the deadline (with the gateway's timeout error). */
  ctx: CallContext;
  /** Stops the timer and lets go of the caller's signal; call it once the call settled. */
  clear(): void;
}

/**
 * One `request-timeout-ms` for a call that must first wait for the upstream's protocol to be detected: the
 * detection, the card fetch and the call are each bounded on their own, so without this one bound over them
 * all such a call lasted up to three times the setting, which operators and callers read as the whole call's.
 * The signal aborts with the error the call's own timeout gives (connectionTimedOut): every client reads an
 * aborted caller's reason as the answer when it is an A2AError. 0: no bound, as for the call itself.
 */
export function withCallDeadline(ctx: CallContext, ms: number): CallDeadline {
  if (ms <= 0) return { ctx, clear: () => undefined };
  const { signal, clear } = timedSignal(ctx.signal, ms, connectionTimedOut);
  return { ctx: withFields(ctx, { signal }), clear };
}
