import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import type { ServerConfig } from './config/schema.js';
import { countsPerKey } from './core/counts-per-key.js';
import { A2AError } from './model/index.js';
import type { GatewayEnv } from './surfaces/shared/env.js';

/**
 * Node's own bounds on slow clients: the request line and headers within `headers-timeout-ms`, the
 * whole request within `request-timeout-ms` (a client past either gets 408 and is disconnected).
 * Node checks them every `connectionsCheckingInterval` (30 s by default, so a slow client would
 * outlive its bound by that much): here at most a second.
 */
export function serverOptions(config: ServerConfig): ServerOptions {
  const headersTimeout = config['headers-timeout-ms'];
  const requestTimeout = config['request-timeout-ms'];
  const bounds = [headersTimeout, requestTimeout].filter((ms) => ms > 0);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, ...bounds) };
}

/** Closes, at once, every connection past `max` open ones from the same peer address. */
export function capConnectionsPerPeer(server: Server, max: number): void {
  const open = countsPerKey();
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? '';
    if (open.add(peer) > max) {
      open.remove(peer);
      socket.destroy();
      return;
    }
    socket.once('close', () => open.remove(peer));
  });
}

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
  outgoing?: { once(event: 'close', listener: () => void): unknown };
}

/** The client as the trusted proxy saw it: the last `X-Forwarded-For` entry (the one the proxy added), else the peer. */
function forwardedClient(headers: Headers, env: NodeBindings | undefined): string {
  const forwarded = headers.get('x-forwarded-for');
  const last = forwarded?.split(',').at(-1)?.trim();
  return last ? last : (env?.incoming?.socket?.remoteAddress ?? '');
}

/**
 * Behind a trusted proxy every connection comes from the proxy: the cap counts the requests in
 * flight (an open stream counts until it closes) per forwarded client address. The request past
 * `max` is answered by `refuse`, in its caller's protocol (surfaces/caller-refusal.ts).
 */
export function capRequestsPerForwardedClient(
  max: number,
  refuse: (c: Context<GatewayEnv>, error: A2AError) => Promise<Response>,
): MiddlewareHandler<GatewayEnv> {
  const inFlight = countsPerKey();
  return async (c, next) => {
    const env = c.env as NodeBindings | undefined;
    const client = forwardedClient(c.req.raw.headers, env);
    if (inFlight.add(client) > max) {
      inFlight.remove(client);
      return refuse(c, A2AError.tooManyRequestsInFlight(max));
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      inFlight.remove(client);
    };
    if (env?.outgoing) env.outgoing.once('close', release);
    try {
      await next();
    } finally {
      // In-process (no Node response): the request is over when the handler is.
      if (!env?.outgoing) release();
    }
  };
}
