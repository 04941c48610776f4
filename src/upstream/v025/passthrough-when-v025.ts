import type { UpstreamConfig } from '../../config/schema.js';
import type { ConnectedUpstream } from '../connect.js';
import { createV025PassThrough, type V025PassThrough } from './passthrough.js';

/** The relay of a 0.2.5/0.3 upstream, decided per call (the facade's `FacadePassThrough`). */
export interface UpstreamPassThrough {
  /** The relay when the upstream speaks 0.2.5/0.3, else undefined; while the protocol is unknown, detection runs first (and throws when it fails). */
  /** `signal` is asked for only while detection is still pending (a request's signal costs to create). */
  resolve(signal: () => AbortSignal): Promise<V025PassThrough | undefined>;
  /** The same without waiting: undefined also while the protocol is unknown. */
  current(): V025PassThrough | undefined;
  close(): Promise<void>;
}

/**
 * A pass-through for the upstream `connected` turns out to be, once it is known: a 0.2.5/0.3 agent
 * gets one (created on first use, on the connection's pool, whose cap it shares), a 1.0 agent none. An agent that was down at start
 * has no protocol yet; `resolve` then runs the connection's shared detection (through its card
 * fetch) before deciding.
 */
export function passThroughWhenV025(connected: ConnectedUpstream, baseUrl: string, config: UpstreamConfig): UpstreamPassThrough {
  let relay: V025PassThrough | undefined;

  function current(): V025PassThrough | undefined {
    const protocol = connected.protocol;
    // The relay speaks JSON-RPC: an agent reached over HTTP+JSON goes through the 1.0 translation instead.
    if (protocol === undefined || protocol === '1.0' || connected.binding === 'HTTP+JSON') return undefined;
    relay ??= createV025PassThrough({ baseUrl, config, dialect: protocol, dispatcher: connected.dispatcher });
    return relay;
  }

  return {
    current,
    async resolve(signal) {
      if (connected.protocol === undefined) await connected.upstream.fetchCard(signal());
      return current();
    },
    close: async () => relay?.close(),
  };
}
