import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { createTracing, TRACES_FLUSH_ON_STOP_MS } from '../../src/observability/tracing.js';

/** What a stop may take beyond the flush bound: the rest of the gateway's close. */
const CLOSE_SLACK_MS = 1_500;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A collector that accepts connections and never answers: the exporter waits, then retries. */
async function silentCollector(): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/traces`;
}

/** A collector that answers 503 to every export: retryable, so the exporter backs off and tries again. */
async function unavailableCollector(): Promise<string> {
  const server = createHttpServer((req, res) => {
    req.resume();
    res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/traces`;
}

/** A working collector: records each export's path. */
async function answeringCollector(): Promise<{ url: string; exports: string[] }> {
  const exports: string[] = [];
  const server = createHttpServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      exports.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/traces`, exports };
}

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

describe('stopping with an OTLP collector configured', () => {
  it('a collector that never answers delays the stop by at most the flush bound', async () => {
    const endpoint = await silentCollector();
    const gateway = await startGateway(defaultConfig({ port: 0, tracing: { 'otlp-endpoint': endpoint } }), createLogger('silent'));
    // One request makes a span, so the stop has something to flush.
    await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).text();
    const took = await timed(() => gateway.close());
    expect(took).toBeLessThan(TRACES_FLUSH_ON_STOP_MS + CLOSE_SLACK_MS);
  });

  it('a collector answering 503 (retried with back-off) delays it no longer', async () => {
    const tracing = await createTracing({ 'otlp-endpoint': await unavailableCollector(), 'service-name': 'a2a-bridge' }, createLogger('silent'));
    tracing.tracer.startSpan('unsent').end();
    expect(await timed(() => tracing.shutdown())).toBeLessThan(TRACES_FLUSH_ON_STOP_MS + 500);
  });

  it('a collector that answers still gets the last spans on stop', async () => {
    const collector = await answeringCollector();
    const tracing = await createTracing({ 'otlp-endpoint': collector.url, 'service-name': 'a2a-bridge' }, createLogger('silent'));
    tracing.tracer.startSpan('last').end();
    expect(await timed(() => tracing.shutdown())).toBeLessThan(TRACES_FLUSH_ON_STOP_MS);
    expect(collector.exports).toEqual(['/v1/traces']);
  });
});
