/**
 * A hand-written 0.2.5 agent whose every answer is scripted by the test, for the wire quirks a real
 * SDK server does not produce on demand (a stream that starts with a status-update, `id:` lines,
 * `event: error`, a connection left open after `final: true`, odd error codes, ...).
 *
 *   const fake = await startFakeV025({ rpc: { 'message/stream': (call, res) => sse(res, call, [...]) } });
 *   fake.url          base URL; the card (0.2.5 at /.well-known/agent.json) says url `${url}/rpc`
 *   fake.calls        every request: path, headers, parsed JSON-RPC body
 *   await fake.close()
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCall {
  httpMethod: string;
  path: string;
  headers: IncomingHttpHeaders;
  method?: string;
  id?: unknown;
  params?: unknown;
  /** Settles when the response is over: true when the client hung up first. */
  closedByClient: Promise<boolean>;
}

export type RpcScript = (call: FakeCall, res: ServerResponse) => void | Promise<void>;
export type RouteScript = (call: FakeCall, res: ServerResponse) => void;

export interface FakeV025Options {
  /** JSON-RPC handlers by method; an unscripted method answers -32601. */
  rpc?: Record<string, RpcScript>;
  /** Extra GET routes by path (extended cards, ...). */
  routes?: Record<string, RouteScript>;
  /** Card fields over the default 0.2.5 card; null serves no card at all. */
  card?: Record<string, unknown> | null;
  /** Where the card is served. Default agent.json. */
  cardPath?: '/.well-known/agent.json' | '/.well-known/agent-card.json';
}

export interface FakeV025 {
  url: string;
  rpcUrl: string;
  calls: FakeCall[];
  rpcCalls(method?: string): FakeCall[];
  close(): Promise<void>;
}

export const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** An answer in no protocol's shape (a proxy's HTML page, an empty 500, a text/plain 404): without `contentType`, none is sent. */
export const raw = (res: ServerResponse, status: number, contentType: string | undefined, body: string): void => {
  res.writeHead(status, contentType === undefined ? {} : { 'content-type': contentType });
  res.end(body);
};

export const rpcResult = (call: FakeCall, res: ServerResponse, result: unknown): void => json(res, 200, { jsonrpc: '2.0', id: call.id, result });

export const rpcError = (call: FakeCall, res: ServerResponse, error: unknown): void => json(res, 200, { jsonrpc: '2.0', id: call.id, error });

/** One SSE frame as a2a-js 0.2.5 writes it: an `id:` line, then the data. */
export const frame = (call: FakeCall, result: unknown): string =>
  `id: ${Date.now()}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result })}\n\n`;

export const errorFrame = (call: FakeCall, error: unknown): string =>
  `id: ${Date.now()}\nevent: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, error })}\n\n`;

/** Write SSE frames; `keepOpen` leaves the response open afterwards, as a misbehaving agent would. */
export function sse(res: ServerResponse, frames: string[], options: { keepOpen?: boolean } = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const text of frames) res.write(text);
  if (!options.keepOpen) res.end();
}

export function defaultCard(url: string): Record<string, unknown> {
  return {
    protocolVersion: '0.2.5',
    name: 'fake-v025',
    description: 'scripted',
    url: `${url}/rpc`,
    version: '1',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    supportsAuthenticatedExtendedCard: true,
  };
}

export async function startFakeV025(options: FakeV025Options = {}): Promise<FakeV025> {
  const calls: FakeCall[] = [];
  let url = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let finished = false;
      res.on('finish', () => (finished = true));
      const call: FakeCall = {
        httpMethod: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0] ?? '/',
        headers: req.headers,
        closedByClient: new Promise((resolve) => res.on('close', () => resolve(!finished))),
      };
      const text = Buffer.concat(chunks).toString('utf8');
      if (text) {
        const body = JSON.parse(text) as { method?: string; id?: unknown; params?: unknown };
        Object.assign(call, { method: body.method, id: body.id, params: body.params });
      }
      calls.push(call);
      if (call.httpMethod === 'GET' && call.path === (options.cardPath ?? '/.well-known/agent.json') && options.card !== null) {
        json(res, 200, { ...defaultCard(url), ...options.card });
        return;
      }
      const route = options.routes?.[call.path];
      if (call.httpMethod === 'GET' && route) return route(call, res);
      if (call.httpMethod === 'POST' && call.path === '/rpc' && call.method) {
        const script = options.rpc?.[call.method];
        if (script) return void script(call, res);
        return rpcError(call, res, { code: -32601, message: `Method not found: ${call.method}` });
      }
      json(res, 404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    rpcUrl: `${url}/rpc`,
    calls,
    rpcCalls: (method) => calls.filter((call) => call.method !== undefined && (method === undefined || call.method === method)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
