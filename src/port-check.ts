import { createServer } from 'node:net';

/** Why the gateway cannot listen on `host:port`, in words an operator acts on. */
export class PortUnavailableError extends Error {}

function reason(code: string | undefined, host: string, port: number, setting = '--port'): string {
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use (stop the other process or pick another ${setting})`;
  if (code === 'EACCES') return `not allowed to listen on port ${port} (ports below 1024 need privileges; pick another ${setting})`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${host}: no such local address (check --host)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot listen on ${host}: the host name does not resolve (check --host)`;
  return `cannot listen on ${host}:${port} (${code ?? 'error'})`;
}

/**
 * Binds and releases `host:port` once, so a taken port stops the start before anything else (the demo
 * agent, upstream detection, stores) has run. Port 0 always succeeds. A race with another process
 * binding in between is still caught when the gateway listens; this only makes the common case early.
 */
export async function assertPortFree(host: string, port: number, setting = '--port'): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(new PortUnavailableError(reason(error.code, host, port, setting))));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The same words for an error from the real listen of the port `setting` names. */
export function listenError(error: unknown, host: string, port: number, setting = '--port'): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ? new PortUnavailableError(reason(code, host, port, setting)) : (error as Error);
}

/**
 * Two bindings set to the same port: each check alone finds it free, then the one that listens second
 * fails, and the words would name that binding's setting, not the clash. Port 0 is a fresh port each time.
 */
export function assertPortsDistinct(port: number, setting: string, mainPort: number): void {
  if (port !== 0 && port === mainPort) {
    throw new PortUnavailableError(`${setting} ${port} is the same as port: set ${setting} to another port, or leave it unset to serve on port`);
  }
}
