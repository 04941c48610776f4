/**
 * A TCP proxy in front of Redis that freezes (every connection stays open, nothing more goes either way) at the
 * moment a command matching `marker` (read as latin1 RESP) comes, before that command reaches Redis: a Redis that froze just after the
 * calls before it were answered, deterministically, where a SIGSTOP can only be timed between calls. `thaw()`
 * lets everything held go on, in order.
 */
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface FreezingRedis {
  /** The Redis URL through the proxy (the target's, its host and port replaced). */
  url: string;
  /** Freezes as the next command matching `marker` comes (once). */
  freezeAt(marker: RegExp): void;
  /** Whether it is frozen now. */
  readonly frozen: boolean;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezingRedis(targetUrl: string): Promise<FreezingRedis> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let marker: RegExp | undefined;
  let frozen = false;
  const held: Array<() => void> = [];
  const pass = (send: () => void): void => void (frozen ? held.push(send) : send());
  const server = createServer((client) => {
    const redis = createConnection({ host: target.hostname, port: Number(target.port || 6379) });
    for (const socket of [client, redis]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('data', (chunk: Buffer) => {
      if (marker?.test(chunk.toString('latin1'))) {
        marker = undefined;
        frozen = true;
      }
      pass(() => redis.write(chunk));
    });
    redis.on('data', (chunk: Buffer) => pass(() => client.write(chunk)));
    client.on('close', () => redis.destroy());
    redis.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    freezeAt: (next) => (marker = next),
    get frozen() {
      return frozen;
    },
    thaw() {
      frozen = false;
      for (const send of held.splice(0)) send();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
