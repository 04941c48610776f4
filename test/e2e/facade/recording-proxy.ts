/**
 * A recording HTTP proxy in front of an agent: it relays every request untouched and keeps what went
 * through (request headers and body, the response bytes exactly as the agent wrote them), so a test
 * can compare what a caller of the gateway received with what the agent sent. The agent's card is
 * the one thing it changes: its `url` is pointed at the proxy, so the gateway's calls come through
 * here too. Until `target` is set it answers 502, like an agent that is down.
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  method: string;
  path: string;
  /** The JSON-RPC method of a POST, when its body names one. */
  rpcMethod?: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The agent's answer as it arrived, byte for byte; resolves when the answer ended. */
  response: Promise<Buffer>;
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  /** Where requests go; undefined answers 502. */
  target: string | undefined;
  rpc(method: string): Exchange[];
  close(): Promise<void>;
}

const CARD_PATHS = new Set(['/.well-known/agent.json', '/.well-known/agent-card.json']);

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startRecordingProxy(target?: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const proxy: RecordingProxy = {
    url: '',
    exchanges,
    target,
    rpc: (method) => exchanges.filter((exchange) => exchange.rpcMethod === method),
    close: async () => undefined,
  };

  async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readAll(req)).toString('utf8');
    let rpcMethod: string | undefined;
    try {
      const method = (JSON.parse(body) as { method?: unknown }).method;
      if (typeof method === 'string') rpcMethod = method;
    } catch {
      rpcMethod = undefined;
    }
    let settle: (bytes: Buffer) => void = () => undefined;
    const response = new Promise<Buffer>((resolve) => (settle = resolve));
    exchanges.push({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      ...(rpcMethod ? { rpcMethod } : {}),
      headers: { ...req.headers },
      body,
      response,
    });
    const base = proxy.target;
    if (!base) {
      settle(Buffer.alloc(0));
      res.writeHead(502).end();
      return;
    }
    const upstream = httpRequest(new URL(req.url ?? '/', base), { method: req.method, headers: { ...req.headers, host: new URL(base).host } });
    res.once('close', () => upstream.destroy());
    upstream.on('error', () => {
      settle(Buffer.alloc(0));
      res.destroy();
    });
    const relay = async (answer: IncomingMessage): Promise<void> => {
      if (req.method === 'GET' && CARD_PATHS.has(new URL(req.url ?? '/', base).pathname) && answer.statusCode === 200) {
        const card = JSON.parse((await readAll(answer)).toString('utf8')) as { url?: string };
        if (typeof card.url === 'string') card.url = card.url.replace(base, proxy.url);
        const text = JSON.stringify(card);
        settle(Buffer.from(text));
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const seen: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => {
        seen.push(chunk);
        res.write(chunk);
      });
      answer.on('end', () => {
        settle(Buffer.concat(seen));
        res.end();
      });
      answer.on('error', () => {
        settle(Buffer.concat(seen));
        res.destroy();
      });
    };
    upstream.on('response', (answer) => void relay(answer));
    upstream.end(body);
  }

  const server = createServer((req, res) => {
    relay(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}
