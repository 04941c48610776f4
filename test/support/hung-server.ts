/**
 * A server that takes every TCP connection and never answers on it (a hung sidecar): not a refused
 * port, which fails a request at once, but one whose requests wait out their timeouts.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface HungServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Connections it took so far (and never answered). */
  accepted(): number;
  close(): Promise<void>;
}

export async function startHungServer(): Promise<HungServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
