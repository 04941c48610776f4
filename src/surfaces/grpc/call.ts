import type { Tracer } from '@opentelemetry/api';
import { startGrpcServerSpan, type GrpcServerSpan } from '../../observability/grpc-span.js';
import { callerTraceHeaders } from '../../observability/trace-context.js';
import { Metadata, status, type ServerUnaryCall, type ServerWritableStream } from '@grpc/grpc-js';
import type { CallContext } from '../../core/agent-port.js';
import { ANONYMOUS_V1_CALLER, authEnabled, authenticate } from '../shared/auth.js';
import type { Caller } from '../shared/caller.js';
import { activatedExtensions } from '../shared/extensions-header.js';
import { outlivingCall } from '../shared/outliving-calls.js';
import { untilShutdown } from '../shared/shutdown-watch.js';
import { requestedExtensions } from '../shared/port-call.js';
import { checkRequestedVersion } from '../v1/version.js';
import type { CallsPerClient } from './calls-per-client.js';
import type { GrpcSurfaceOptions } from './options.js';
import { toGrpcStatus, unauthenticated, type GrpcErrorStatus } from './status.js';
import { MAX_TIMER_MS } from '../../timed-signal.js';

/**
 * gRPC metadata as the Headers the HTTP bindings read: the same auth and extension logic then
 * applies to both. Binary (`-bin`) entries and values a header cannot hold are left out.
 */
export function metadataHeaders(metadata: Metadata): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(metadata.getMap())) {
    if (typeof value !== 'string') continue;
    try {
      headers.append(key, value);
    } catch {
      // Not a valid header value (e.g. a control character): no scheme could accept it anyway.
    }
  }
  return headers;
}

/** A server call of either kind the A2A service has (unary, server streaming). */
export type ServerCall = ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>;

export interface GrpcCall {
  ctx: CallContext;
  /** The extensions the upstream activated so far (only those the caller requested). */
  activated(): string[];
  /** Ends the call's upstream work (ctx.signal), e.g. when its first event did not come in time. */
  abort(reason?: unknown): void;
  /** Whether the call's deadline passed and ended its upstream work here (ctx.signal), grpc-js having told it or not. */
  deadlinePassed(): boolean;
  /** Lets go of the shutdown signal and the deadline timer; call it when the call is answered. */
  release(): void;
  /** The call's server span, when traces are recorded. */
  span?: GrpcServerSpan;
  /** The caller's client name (config), for the call's log line and metrics; absent: unnamed. */
  client?: string;
}

/** Thrown before a call reaches the core: the status to answer with. */
export class RejectedCall extends Error {
  constructor(readonly status: GrpcErrorStatus) {
    super(status.details);
  }
}

/**
 * The CallContext of one gRPC call: a place among its client's open calls (`places`, held until
 * release), authenticated from `authorization` or the API-key header (as on the HTTP bindings),
 * version-checked from `a2a-version`, extensions from `a2a-extensions`, and ONE AbortController that
 * fires when the client cancels, the deadline passes (both only for a call that does not
 * `outlivesCaller`) or the gateway shuts down.
 */
export async function openGrpcCall(
  call: ServerCall,
  options: Pick<GrpcSurfaceOptions, 'auth' | 'lenientVersion'>,
  shutdown?: AbortSignal,
  trace?: { tracer: Tracer; method: string },
  places?: CallsPerClient,
  outlivesCaller = false,
): Promise<GrpcCall> {
  const place = places?.take(call);
  let caller: Caller;
  let headers: Headers;
  try {
    ({ caller, headers } = await admittedCaller(call, options));
  } catch (error) {
    place?.();
    throw error;
  }

  const controller = new AbortController();
  const cancelled = (): void => controller.abort(new DOMException('The client cancelled the call', 'AbortError'));
  // A call that changes something runs to its end when its caller stops waiting (operations.ts), within
  // its caller's share of such calls.
  const ended = outlivesCaller ? outlivingCall(shutdown, caller.principal) : undefined;
  if (!ended) {
    if (call.cancelled) cancelled();
    else call.once('cancelled', cancelled);
  }
  let deadlinePassed = false;
  const deadlineTimer = ended
    ? undefined
    : deadlineAbort(call, () => {
        deadlinePassed = !controller.signal.aborted;
        controller.abort(new DOMException('The call deadline passed', 'TimeoutError'));
      });
  const stopWatching = shutdown ? untilShutdown(shutdown, () => controller.abort(shutdown.reason)) : undefined;
  const extensions = requestedExtensions(headers);
  const activated = extensions ? activatedExtensions() : undefined;
  const span = trace ? startGrpcServerSpan(trace.tracer, headers, trace.method, caller.client) : undefined;
  const traceHeaders = span ? span.traceHeaders : callerTraceHeaders(headers);
  return {
    ctx: {
      principal: caller.principal,
      ...(caller.client === undefined ? {} : { client: caller.client }),
      signal: controller.signal,
      surface: 'grpc',
      ...(extensions && activated ? { extensions, onActivatedExtensions: activated.add } : {}),
      ...(traceHeaders ? { traceHeaders } : {}),
    },
    ...(span ? { span } : {}),
    ...(caller.client === undefined ? {} : { client: caller.client }),
    activated: () => activated?.list() ?? [],
    abort: (reason?: unknown) => controller.abort(reason),
    deadlinePassed: () => deadlinePassed,
    release() {
      place?.();
      call.off('cancelled', cancelled);
      if (deadlineTimer) clearTimeout(deadlineTimer);
      stopWatching?.();
      ended?.();
    },
  };
}

/**
 * The status a caller that went away got, when it did and that ended the call: `CANCELLED` (it cancelled), or
 * `DEADLINE_EXCEEDED` (its deadline passed: grpc-js answered that itself). `failed`: the call ended with an error,
 * which counts as the caller's leaving only when it aborted the call's signal; a call that runs on past its caller
 * (`outlivesCaller`) and then fails still failed. grpc-js marks a call `cancelled` on the tick after its status
 * went out too: read right after answering, it tells the caller's leaving alone.
 *
 * The deadline's timer here (deadlineAbort) and grpc-js's own are set for the same instant, and either may run
 * first: ours usually, as it is set later in the same turn of the event loop, whose clock it reads as of the
 * turn's start. A call that failed because ours ended it is its caller's leaving all the same, though grpc-js has
 * not marked it cancelled yet (it was logged INTERNAL, -32603, and answered so, under load).
 */
export function callerLeftStatus(call: ServerCall, opened: GrpcCall | undefined, failed: boolean): status | undefined {
  if (failed && opened?.deadlinePassed() === true) return status.DEADLINE_EXCEEDED;
  if (!call.cancelled || (failed && opened?.ctx.signal.aborted !== true)) return undefined;
  return deadlineAt(call) <= Date.now() ? status.DEADLINE_EXCEEDED : status.CANCELLED;
}

/** What grpc-js answers a call whose deadline passed: answered the same by whichever timer ran first. */
export function deadlineExceeded(): GrpcErrorStatus {
  return { code: status.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: new Metadata() };
}

/** When the call's deadline passes (Infinity: none). */
function deadlineAt(call: ServerCall): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/** The caller of a call its credentials and version admit; else the RejectedCall to answer. */
async function admittedCaller(
  call: ServerCall,
  options: Pick<GrpcSurfaceOptions, 'auth' | 'lenientVersion'>,
): Promise<{ caller: Caller; headers: Headers }> {
  const headers = metadataHeaders(call.metadata);
  const authenticated = await authenticate(headers, options.auth);
  if (authenticated === undefined && authEnabled(options.auth)) throw new RejectedCall(unauthenticated());
  const versionError = checkRequestedVersion(headers.get('a2a-version')?.trim() ?? '', options.lenientVersion, 'metadata');
  if (versionError) throw new RejectedCall(toGrpcStatus(versionError));
  return { caller: authenticated ?? ANONYMOUS_V1_CALLER, headers };
}

/**
 * grpc-js ends a call whose deadline passed with DEADLINE_EXCEEDED; the upstream call is aborted at
 * the same moment here (`passed`), so it does not run on for a caller that stopped waiting.
 */
function deadlineAbort(call: ServerCall, passed: () => void): NodeJS.Timeout | undefined {
  const at = deadlineAt(call);
  // Past what a timer can hold (about 24.8 days) the deadline is as good as none.
  if (!Number.isFinite(at) || at - Date.now() > MAX_TIMER_MS) return undefined;
  const timer = setTimeout(passed, Math.max(0, at - Date.now()));
  timer.unref();
  return timer;
}
