import { A2AError } from '../../model/index.js';
import { countsPerKey } from '../../core/counts-per-key.js';
import { RejectedCall, type ServerCall } from './call.js';
import { toGrpcStatus } from './status.js';

/** A call's hold on one of its client's places; `release` may be called any number of times, it counts once. */
export type CallPlace = () => void;

export interface CallsPerClient {
  /** A place for the call, or a RejectedCall (RESOURCE_EXHAUSTED) thrown when its client has `max` calls open. */
  take(call: ServerCall): CallPlace;
}

/** `ipv4:1.2.3.4:5678`, `1.2.3.4:5678` or `[::1]:5678`, as grpc-js names a peer: the address without its port. */
export function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]*)\]/.exec(bare);
  if (bracketed) return bracketed[1]!;
  const hostAndPort = /^([^:]+):\d+$/.exec(bare);
  return hostAndPort ? hostAndPort[1]! : bare;
}

/** The client as the trusted proxy saw it (the last `x-forwarded-for` entry, the one the proxy added), else the peer. */
function clientOf(call: ServerCall, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = call.metadata.get('x-forwarded-for').at(-1);
    const last = typeof forwarded === 'string' ? forwarded.split(',').at(-1)?.trim() : undefined;
    if (last) return last;
  }
  return peerAddress(call.getPeer());
}

/**
 * `server.max-connections-per-client` on the gRPC port. HTTP/2 carries any number of calls over one
 * connection, so counting connections would bound nothing: the calls open at once are counted per client
 * address instead (a stream counts until it ends), and the call past `max` is RESOURCE_EXHAUSTED with the
 * reason, before its credentials are checked, as the HTTP port refuses before it reads a request.
 */
export function callsPerClient(max: number, trustProxy: boolean): CallsPerClient | undefined {
  if (max <= 0) return undefined;
  const open = countsPerKey();
  return {
    take(call) {
      const client = clientOf(call, trustProxy);
      if (open.add(client) > max) {
        open.remove(client);
        throw new RejectedCall(toGrpcStatus(A2AError.tooManyRequestsInFlight(max)));
      }
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        open.remove(client);
      };
    },
  };
}
