/** A JWKS served over HTTP on 127.0.0.1 for a test: its keys can change, and its fetches are counted. */
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';

export interface JwksServer {
  url: string;
  keys: JWK[];
  /** The HTTP status answered from now on (200 serves the keys). */
  status: number;
  fetches(): number;
  close(): Promise<void>;
}

/** With `tls`, served over HTTPS with that certificate. */
export async function startJwksServer(keys: JWK[], tls?: { cert: Buffer; key: Buffer }): Promise<JwksServer> {
  let count = 0;
  const state = { keys, status: 200 };
  const answer = (_request: unknown, response: import('node:http').ServerResponse): void => {
    count += 1;
    response.writeHead(state.status, { 'content-type': 'application/jwk-set+json' });
    response.end(state.status === 200 ? JSON.stringify({ keys: state.keys }) : '{"error":"down"}');
  };
  const server = tls ? createHttpsServer(tls, answer) : createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    get keys() {
      return state.keys;
    },
    set keys(next: JWK[]) {
      state.keys = next;
    },
    get status() {
      return state.status;
    },
    set status(next: number) {
      state.status = next;
    },
    fetches: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
