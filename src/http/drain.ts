import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { settlesWithin } from '../settles-within.js';

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
 * Settles after an I/O poll that began after this call, so what the kernel had queued for the server
 * by then is read. Called from inside a poll (a signal, a socket event), one immediate would run
 * before the next poll: the second one runs after it.
 */
const nextPoll = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * Graceful stop for a Node HTTP server: new connections are refused at once, idle connections closed
 * (also those that only become idle while draining: `server.close()` alone would wait for their
 * keep-alive timeout) once what was already sent is read, open requests and streams get `drainMs` to finish, then `interrupt()` ends
 * them in their protocol, and after a short grace the rest is cut.
 * Attach it right after the server starts listening: it tracks connections and responses from then on.
 */
export function drainable(server: Server): DrainableServer {
  const open = new Set<ServerResponse>();
  // Connections that have not sent a byte yet. Node counts them as busy, not idle, but clients open
  // them ahead of need (undici does after every aborted request) and would hold the drain until the end.
  const unused = new Set<Socket>();
  let draining = false;
  /** Once the drain has read what was sent before it: idle connections are closed as they become idle. */
  let closingIdle = false;
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
      // Not before the drain has read what was sent (below): a connection accepted meanwhile has not been read yet.
      if (closingIdle) closeIdleSoon();
    });
  });

  let drained: Promise<void> | undefined;
  return {
    drain({ drainMs, interrupt, graceMs = DEFAULT_GRACE_MS }) {
      drained ??= (async () => {
        draining = true;
        for (const response of open) if (!response.headersSent) response.shouldKeepAlive = false;
        // A request its client sent just before the signal may still sit in the kernel: its connection
        // not yet accepted, or its bytes not yet read. Closing at once reset it. The first poll accepts
        // the queued connections and reads the kept-alive ones (which `server.close()` closes when
        // idle), the second reads what the newly accepted ones had sent.
        await nextPoll();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await nextPoll();
        closingIdle = true;
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
