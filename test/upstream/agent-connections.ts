import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/** The agent's door as the gateway dials it: each connection passed on to the agent, counted while open. */
export interface CountedDoor {
  /** `http://127.0.0.1:<port>` of the door: the agent's URL as the gateway is given it. */
  url: string;
  /** How many connections were in use at once, at most, since the door opened. */
  peak(): number;
  close(): Promise<void>;
}

/**
 * A TCP door in front of the agent at `target` that counts the connections the gateway holds to it at once: what
 * an agent that takes N connections at most (iac-code) sees. Each connection through it is one to the agent. One
 * counts from its first request to its end: the gateway ends a connection before it opens the next, but the door may
 * be told of the new one before it reads the end of the old.
 */
export async function countedDoor(target: string): Promise<CountedDoor> {
  const { hostname, port } = new URL(target);
  const all = new Set<Socket>();
  const sockets = new Set<Socket>();
  let peak = 0;
  const server = createServer((socket) => {
    all.add(socket);
    const agent = connect(Number(port), hostname);
    socket.once('data', () => {
      sockets.add(socket);
      peak = Math.max(peak, sockets.size);
    });
    socket.pipe(agent).pipe(socket);
    const end = (): void => {
      sockets.delete(socket);
      all.delete(socket);
      socket.destroy();
      agent.destroy();
    };
    socket.on('end', end).on('close', end).on('error', end);
    agent.on('close', end).on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    peak: () => peak,
    async close() {
      for (const socket of all) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
