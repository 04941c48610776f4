import type { Context } from 'hono';
import type { CallContext } from '../../core/agent-port.js';
import type { GatewayEnv } from './env.js';
import { parseExtensionUris } from '../../core/extension-uris.js';
import { activatedExtensions } from './extensions-header.js';
import { outlivingCall } from './outliving-calls.js';
import { untilShutdown } from './shutdown-watch.js';

/** Extension URIs from `A2A-Extensions` (comma-separated, possibly repeated), else the 0.x `X-A2A-Extensions`. */
export function requestedExtensions(headers: Headers): string[] | undefined {
  const uris = parseExtensionUris(headers.get('a2a-extensions') ?? headers.get('x-a2a-extensions'));
  return uris.length > 0 ? uris : undefined;
}

export interface PortCall {
  ctx: CallContext;
  /** Aborts ctx.signal; for a stream whose client went away, or with `reason` for a call cut short. */
  abort(reason?: unknown): void;
  /**
   * Detaches ctx.signal from the shutdown signal; call it when the handler returns (a stream's SSE
   * writer follows the shutdown from then on). The shutdown signal lives as long as the gateway: a
   * listener left on it would keep every finished call alive.
   */
  release(): void;
  /** The extensions the upstream activated for this call so far (known once its response has begun). */
  activated(): string[];
  /**
   * Offers the client's disconnect to `takesOn` first: when it takes the call on without its caller (true), the
   * call's signal is not aborted, and whoever took it ends it (`abort`). The 0.2.5 facade follows a new task's turn
   * so until the agent's first event names its task (unwatched-turns.ts TurnBound.callerGone).
   */
  onClientGone(takesOn: (reason: unknown) => boolean): void;
  /** Its client disconnected before its answer was written out: the signal aborted so, or the call taken on (onClientGone). */
  clientLeft(): boolean;
}

const noneActivated = (): string[] => [];

/** What portCall needs of the Node response @hono/node-server serves the request with. */
interface NodeResponse {
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/** The `outgoing` binding of @hono/node-server; absent when the app is called in-process (app.request). */
function nodeResponseOf(c: Context<GatewayEnv>): NodeResponse | undefined {
  const outgoing = (c.env as { outgoing?: Partial<NodeResponse> } | undefined)?.outgoing;
  return typeof outgoing?.once === 'function' && typeof outgoing.destroyed === 'boolean' ? (outgoing as NodeResponse) : undefined;
}

export interface PortCallOptions {
  /** The client's disconnect does not abort the call (operations.ts, `outlivesCaller`). */
  outlivesCaller?: boolean;
}

/**
 * The CallContext of one request, with ONE AbortController: it aborts when the client disconnects
 * (unless the call `outlivesCaller`: a turn or a cancel the caller stopped waiting for runs to its end
 * and is recorded), when the gateway's `shutdown` signal fires (with its reason, so a call cut short by
 * a shutdown fails with that error), and when the surface calls abort(), e.g. when an SSE reader cancels.
 *
 * Under @hono/node-server the client's disconnect is the Node response closing before it was
 * written out (what node-server itself watches): reading `c.req.raw.signal` instead would make it
 * create one more AbortController per request, and on Node 20 an AbortSignal is among the costliest
 * objects of a call.
 */
export function portCall(
  c: Context<GatewayEnv>,
  surface: NonNullable<CallContext['surface']>,
  shutdown?: AbortSignal,
  options: PortCallOptions = {},
): PortCall {
  const controller = new AbortController();
  const clientGone = (reason: unknown = new DOMException('The client went away', 'AbortError')): void => controller.abort(reason);
  const principal = c.get('principal') ?? '';
  // Past its caller's share of carried-on calls, a call ends with its caller after all.
  const ended = options.outlivesCaller ? outlivingCall(shutdown, principal) : undefined;
  let takesOn: ((reason: unknown) => boolean) | undefined;
  let takenOn = false;
  const gone = (reason?: unknown): void => {
    takenOn = takesOn?.(reason) === true;
    if (!takenOn) clientGone(reason);
  };
  if (!ended) watchClient(c, gone);
  const stopWatching = shutdown ? untilShutdown(shutdown, () => controller.abort(shutdown.reason)) : undefined;
  const extensions = requestedExtensions(c.req.raw.headers);
  // An agent activates only what was requested: without a request there is nothing to collect.
  const activated = extensions ? activatedExtensions() : undefined;
  const ctx: CallContext = {
    principal,
    signal: controller.signal,
    surface,
    ...(extensions && activated ? { extensions, onActivatedExtensions: activated.add } : {}),
  };
  const client = c.get('client');
  if (client !== undefined) ctx.client = client;
  // What the observability middleware left for the call (c.get, not c.var: Hono builds an object of
  // every variable on each read of c.var), set in place: no spread objects on the hot path.
  const traceHeaders = c.get('traceHeaders');
  if (traceHeaders) ctx.traceHeaders = traceHeaders;
  const timing = c.get('timing');
  if (timing) ctx.timing = timing;
  return {
    ctx,
    abort: (reason?: unknown) => clientGone(reason),
    release() {
      stopWatching?.();
      ended?.();
    },
    activated: activated?.list ?? noneActivated,
    onClientGone: (taker) => void (takesOn = taker),
    clientLeft: () => takenOn || controller.signal.aborted,
  };
}

/** Calls `gone` when the client disconnects before its answer was written out. */
function watchClient(c: Context<GatewayEnv>, gone: (reason?: unknown) => void): void {
  const outgoing = nodeResponseOf(c);
  if (outgoing) {
    if (outgoing.destroyed) gone();
    else outgoing.once('close', () => !outgoing.writableFinished && gone());
    return;
  }
  const requestSignal = c.req.raw.signal;
  if (requestSignal.aborted) gone(requestSignal.reason);
  else requestSignal.addEventListener('abort', () => gone(requestSignal.reason), { once: true });
}
