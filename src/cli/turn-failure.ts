import type { Upstream } from '../core/agent-port.js';
import { A2AError } from '../model/index.js';
import { failureCause } from '../upstream/failure-cause.js';
import { oneLine } from './exit-codes.js';

/**
 * Where the turn goes once the card is read: the endpoint the client took from it (the JSON-RPC or HTTP+JSON
 * interface, or a 0.2.5 card's `url`, as the client resolved it), or the gRPC target it dials (`host:port`).
 * The card is read at the address typed, and no client follows it to another host (upstream/card-address.ts:
 * an HTTP interface is called at the typed origin, a gRPC one at the typed host and the card's port).
 */
export function turnAddress(upstream: Upstream, url: string): string {
  // The clients keep the endpoint they call (V1Upstream, V025Upstream, V03RestUpstream, GrpcUpstream); the port does not name it.
  const endpoint = (upstream as Partial<{ endpoint(): string | undefined }>).endpoint?.();
  return endpoint ?? url;
}

/** A whole-call bound ran out: --timeout-ms's own (the command's signal), or the client's, which is given the same. */
export function ranOutOfTime(signal: AbortSignal, error: unknown): boolean {
  const named = (value: unknown) => (value as { name?: unknown } | undefined)?.name === 'TimeoutError';
  return (signal.aborted && named(signal.reason)) || (error instanceof A2AError && named(error.cause));
}

export interface TurnTarget {
  /** The address typed. */
  url: string;
  /** Where the turn went (turnAddress). */
  address: string;
  /** --timeout-ms ran out (ranOutOfTime). */
  ranOut: boolean;
  timeoutMs: number;
}

/**
 * What `call` says of a turn that failed, naming the address it went to: that the time ran out, what failed on
 * the way there (the client's cause: `getaddrinfo ENOTFOUND host`, `other side closed`), or what the agent
 * answered. The client's own words for a transport failure ("Upstream agent is unavailable", -32603) are the
 * gateway's for its callers, and read here as an agent's error.
 */
export function turnFailureText(error: unknown, target: TurnTarget): string {
  if (target.ranOut) return `the call to ${target.address} did not end within --timeout-ms (${target.timeoutMs} ms)`;
  if (!(error instanceof A2AError)) return `the call to ${target.address} failed: ${oneLine(error)}`;
  if (error.cause !== undefined) return `the call to ${target.address} failed: ${failureCause(error).cause}`;
  return `the call to ${target.address} failed: ${error.message} (A2A error ${error.code})`;
}
