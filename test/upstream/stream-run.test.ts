/**
 * A 1.0 stream from its SSE reader up is one run of layers (core/iterable-stages.ts): the upstream client's stream and
 * the metered upstream's first-read watch add no promise per event to the taps above them, and the client's `return()`
 * still waits for a read in flight, as the generator it replaced did.
 */
import { createHook } from 'node:async_hooks';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import type { CallContext, Upstream } from '../../src/core/agent-port.js';
import { mapIterable, tapIterable } from '../../src/core/iterables.js';
import type { StreamResponse } from '../../src/model/index.js';
import { createGatewayMetrics } from '../../src/observability/metrics.js';
import { meteredUpstream } from '../../src/observability/metrics-port.js';
import { createJsonRpcTransport, streamJsonRpc, type JsonRpcTransport } from '../../src/upstream/jsonrpc-client.js';
import { createV1RestCalls } from '../../src/upstream/v1/rest-calls.js';

const chunk = (n: number): StreamResponse => ({
  artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: `${n}` }] }, append: n > 0 },
});

let server: Server | undefined;
let transport: (JsonRpcTransport & { close(): Promise<void> }) | undefined;
afterEach(async () => {
  await transport?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = transport = undefined;
});

/** An agent that answers each stream request through `answer`, given a frame writer for the request's id. */
async function agent(answer: (frame: (result: unknown) => string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (data: Buffer) => (body += data.toString()));
    req.on('end', () => {
      // An HTTP+JSON request carries no id; its frames are the events themselves.
      const { id } = JSON.parse(body) as { id?: string };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      answer((result) => `data: ${JSON.stringify(id === undefined ? result : { jsonrpc: '2.0', id, result })}\n\n`, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  transport = createJsonRpcTransport(UpstreamConfig.parse({}));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const ctx = (): CallContext => ({ principal: '', signal: new AbortController().signal, surface: 'jsonrpc' });

function upstreamAt(endpoint: string): Upstream {
  const stream = (_request: unknown, ctx: CallContext) =>
    streamJsonRpc({ transport: transport!, endpoint, method: 'SendStreamingMessage', params: {}, ctx });
  return { sendStreamingMessage: stream, subscribeToTask: stream } as unknown as Upstream;
}

/** The metered upstream's stream under some taps and maps, as a relayed 1.0 stream is read. */
function relayed(endpoint: string): AsyncIterable<StreamResponse> {
  let stream: AsyncIterable<StreamResponse> = meteredUpstream(
    upstreamAt(endpoint),
    createGatewayMetrics({ defaultMetrics: false }),
  ).sendStreamingMessage({ message: {} } as never, ctx());
  for (let layer = 0; layer < 4; layer++) stream = layer % 2 ? mapIterable(stream, (event) => event) : tapIterable(stream, {});
  return stream;
}

async function promisesPerEvent(stream: AsyncIterable<unknown>, events: number): Promise<number> {
  let promises = 0;
  let read = 0;
  const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
  try {
    for await (const _ of stream) read++;
  } finally {
    hook.disable();
  }
  expect(read).toBe(events);
  return promises / events;
}

describe('a 1.0 stream from the upstream reader up', () => {
  it('is one run: the metered upstream and the layers above it make no promise per event of their own', async () => {
    const events = 400;
    const endpoint = await agent((frame, res) => res.end(Array.from({ length: events }, (_, n) => frame(chunk(n))).join('')));
    const bare = () => streamJsonRpc({ transport: transport!, endpoint, method: 'SendStreamingMessage', params: {}, ctx: ctx() });
    await promisesPerEvent(relayed(endpoint), events);
    const alone = await promisesPerEvent(bare(), events);
    const layered = await promisesPerEvent(relayed(endpoint), events);
    // Without the run reaching the reader, the stack's top read makes a promise per event of its own (one more).
    expect(layered - alone).toBeLessThan(0.3);
  });

  it('so is one from an HTTP+JSON agent: its client adds no promise per event to the reader', async () => {
    const events = 400;
    const endpoint = await agent((frame, res) => res.end(Array.from({ length: events }, (_, n) => frame(chunk(n))).join('')));
    const calls = createV1RestCalls({ transport: transport!, endpoint: () => Promise.resolve(endpoint.slice(0, -1)) });
    const stream = (): AsyncIterable<StreamResponse> => calls.stream('sendStreamingMessage', { message: {} }, ctx());
    const layered = (): AsyncIterable<StreamResponse> =>
      tapIterable(
        mapIterable(stream(), (event) => event),
        {},
      );
    await promisesPerEvent(layered(), events);
    const alone = await promisesPerEvent(stream(), events);
    const stacked = await promisesPerEvent(layered(), events);
    // Without the client's stream a Stage, the stack's top read makes a promise per event of its own (and two generators more).
    expect(stacked - alone).toBeLessThan(0.3);
  });

  it('passes a frame that carries nothing by within the run', async () => {
    const endpoint = await agent((frame, res) => res.end(frame(chunk(0)) + frame({}) + frame(chunk(1)) + frame({})));
    const read: StreamResponse[] = [];
    for await (const event of relayed(endpoint)) read.push(event);
    expect(read).toEqual([chunk(0), chunk(1)]);
  });

  it('a return during a read waits for it, as a generator does: the read is handed its event, not left pending', async () => {
    let send: (() => void) | undefined;
    let closed = false;
    const endpoint = await agent((frame, res) => {
      res.write(frame(chunk(0)));
      send = () => res.end(frame(chunk(1)));
      res.on('close', () => (closed = true));
    });
    const events = relayed(endpoint)[Symbol.asyncIterator]();
    expect(await events.next()).toEqual({ done: false, value: chunk(0) });
    const pending = events.next();
    let returned = false;
    const returning = events.return!().then(() => (returned = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(returned).toBe(false);
    send!();
    expect(await pending).toEqual({ done: false, value: chunk(1) });
    await returning;
    expect(await events.next()).toEqual({ done: true, value: undefined });
    await expect.poll(() => closed).toBe(true);
  });
});
