import { createServer, type AddressInfo } from 'node:net';

/**
 * A port on 127.0.0.1 that nothing listens on right now: for a server a test starts later, on purpose. Between this
 * probe's close and that server's listen another socket may take it: a server that can listen on port 0 and say which
 * should do that, and one that cannot (redis-server) should start through onFreePort, which tries again elsewhere.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server could not listen on its port: another socket holds it (EADDRINUSE). */
export class PortTaken extends Error {
  constructor(
    readonly port: number,
    detail: string,
  ) {
    super(`port ${port} on 127.0.0.1 is already in use: ${detail}`);
    this.name = 'PortTaken';
  }
}

export interface FreePortOptions {
  /** Where ports come from (a test puts a taken one first). */
  pickPort?: () => Promise<number>;
  attempts?: number;
}

/**
 * Runs `start` on a free port and resolves to what it returns; when `start` fails with PortTaken (another file's
 * socket took the port after freePort() found it free), tries again on another port. `start` cleans up after a
 * failure of its own. Any other failure is thrown at once.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, options: FreePortOptions = {}): Promise<T> {
  const { pickPort = freePort, attempts = 5 } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await pickPort());
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= attempts) throw error;
    }
  }
}

/**
 * A port on 127.0.0.1 that nothing listens on for the whole run, for an agent that cannot be reached: a privileged
 * port below the range the system hands out for port 0 (32768-60999 on Linux). A freePort() can be taken by another
 * file's server between its close and the test's first call (seen once: a card read answered 503).
 */
export const CLOSED_PORT = 1;
