/** What the bench's hop processes (bare-proxy.ts, floor-hop.ts) share: their arguments, their upstream pool, how they listen and stop. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';

/**
 * The upstream origin (argv[2]) and a pool to it of the gateway's default shape (src/upstream/http.ts
 * createUpstreamPool), `argv[3]` connections (default 128); exits 2 with a usage line without an origin.
 */
export function hopUpstream(script: string): { origin: string; pool: Agent } {
  const origin = process.argv[2];
  if (!origin) {
    process.stderr.write(`usage: ${script} <upstream-origin> [connections]\n`);
    process.exit(2);
  }
  const pool = new Agent({
    connections: Number(process.argv[3] ?? 128),
    headersTimeout: 60_000,
    bodyTimeout: 0,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
  });
  return { origin, pool };
}

/** Listens on 127.0.0.1, prints `READY <url>`, and closes the server and the pool on SIGTERM/SIGINT. */
export function listenAsHop(server: http.Server, pool: Dispatcher): void {
  server.maxRequestsPerSocket = 0;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void pool.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
