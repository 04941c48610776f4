import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { settlesWithin } from './settles-within.js';

export interface DrainOptions {
  /** How long open requests and streams may take to finish on their own. */
  drainMs: number;
  /** Called once `drainMs` ran out: end whatever is still open in its caller's protocol. */
  interrupt(): void;
  /** After `interrupt()`, how long the last bytes may take before the remaining connections are cut. */
  graceMs?: number;
}

export interface DrainableServer {
  /** Stops the server gracefully; resolves once every connection is closed. */
  drain(options: DrainOptions): Promise<void>;
}

const DEFAULT_GRACE_MS = 1_000;

/**
 * Graceful stop for a Node HTTP server: new connections are refused at once, idle connections closed
 * (also those that only become idle while draining: `server.close()` alone would wait for their
 * keep-alive timeout), open requests and streams get `drainMs` to finish, then `interrupt()` ends
 * them in their protocol, and after a short grace the rest is cut.
 * Attach it right after the server starts listening: it tracks connections and responses from then on.
 */
export function drainable(server: Server): DrainableServer {
  const open = new Set<ServerResponse>();
  // Connections that have not sent a byte yet. Node counts them as busy, not idle, but clients open
  // them ahead of need (undici does after every aborted request) and would hold the drain until the end.
  const unused = new Set<Socket>();
  let draining = false;
  const closeIdle = (): void => {
    server.closeIdleConnections();
    for (const socket of unused) if (socket.bytesRead === 0) socket.destroy();
  };
  const closeIdleSoon = (): void => {
    setImmediate(closeIdle);
  };

  server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (request, response: ServerResponse) => {
    unused.delete(request.socket);
    // A request on a kept-alive connection while draining is still served, then its connection closes.
    if (draining) response.shouldKeepAlive = false;
    open.add(response);
    response.once('close', () => {
      open.delete(response);
      if (draining) closeIdleSoon();
    });
  });

  let drained: Promise<void> | undefined;
  return {
    drain({ drainMs, interrupt, graceMs = DEFAULT_GRACE_MS }) {
      drained ??= (async () => {
        draining = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const response of open) if (!response.headersSent) response.shouldKeepAlive = false;
        closeIdle();
        if (await settlesWithin(closed, drainMs)) return;
        interrupt();
        if (!(await settlesWithin(closed, graceMs))) server.closeAllConnections();
        await closed;
      })();
      return drained;
    },
  };
}
