import type { Upstream } from '../core/agent-port.js';
import { A2AError, type AgentCard } from '../model/index.js';
import type { UpstreamBinding } from '../upstream/detect.js';
import { failureCause } from '../upstream/failure-cause.js';
import { interfaceOf } from '../upstream/v1-client.js';
import { oneLine } from './exit-codes.js';

/**
 * Where the turn goes once the card is read: the endpoint the client took from it (the JSON-RPC or HTTP+JSON
 * interface, or a 0.2.5 card's `url`, as the client resolved it), or a gRPC agent's interface as the card names it.
 * The card is read at the address typed; the turn goes where the card says, which may be another host
 * (an a2a-bridge's public-url, not reachable from here yet).
 */
export function turnAddress(upstream: Upstream, card: AgentCard, binding: UpstreamBinding, url: string): string {
  if (binding === 'GRPC') return interfaceOf(card, 'GRPC')?.url ?? url;
  // The HTTP clients keep the endpoint they call (V1Upstream, V025Upstream, V03RestUpstream); the port does not name it.
  const endpoint = (upstream as Partial<{ endpoint(): string | undefined }>).endpoint?.();
  return endpoint ?? url;
}

/** The card sent the turn to another origin than the address typed: said, since that address is what failed. */
function elsewhereHint(address: string, url: string, binding: UpstreamBinding | undefined): string {
  if (binding === 'GRPC') return '';
  try {
    if (new URL(address).origin === new URL(url).origin) return '';
  } catch {
    return '';
  }
  return `; the agent's card, read at ${url}, names that address for calls (an a2a-bridge names its public-url)`;
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
  binding?: UpstreamBinding;
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
  const hint = elsewhereHint(target.address, target.url, target.binding);
  if (target.ranOut) return `the call to ${target.address} did not end within --timeout-ms (${target.timeoutMs} ms)${hint}`;
  if (!(error instanceof A2AError)) return `the call to ${target.address} failed: ${oneLine(error)}${hint}`;
  if (error.cause !== undefined) return `the call to ${target.address} failed: ${failureCause(error).cause}${hint}`;
  return `the call to ${target.address} failed: ${error.message} (A2A error ${error.code})${hint}`;
}
