/**
 * A TCP proxy in front of Redis that passes every command `lagMs` late, in order, and every answer at once: a
 * replica behind it (a busy Redis, a slow link) writes its registry that much after it asked, while another
 * replica, connected directly, reads what has landed by then.
 */
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface LaggingRedis {
  /** The Redis URL through the proxy (the target's, its host and port replaced). */
  url: string;
  close(): Promise<void>;
}

export async function startLaggingRedis(targetUrl: string, lagMs: number): Promise<LaggingRedis> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const tracked = (socket: Socket): Socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  };
  const server = createServer((client) => {
    const redis = tracked(createConnection({ host: target.hostname, port: Number(target.port || 6379) }));
    tracked(client);
    // Timers of one delay fire in the order they were set: the commands keep theirs.
    client.on('data', (chunk) => setTimeout(() => redis.write(chunk), lagMs));
    client.on('close', () => setTimeout(() => redis.destroy(), lagMs));
    redis.on('data', (chunk) => client.write(chunk));
    redis.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
