/** How a bench hop process (bare-proxy.ts, floor-hop.ts) listens and stops: READY on stdout, SIGTERM/SIGINT close everything. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';

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
