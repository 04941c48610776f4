import { createServer, type AddressInfo } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on right now: for a server a test starts later, on purpose. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A port on 127.0.0.1 that nothing listens on for the whole run, for an agent that cannot be reached: a privileged
 * port below the range the system hands out for port 0 (32768-60999 on Linux). A freePort() can be taken by another
 * file's server between its close and the test's first call (seen once: a card read answered 503).
 */
export const CLOSED_PORT = 1;
