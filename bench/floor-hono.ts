/**
 * The floor hop (floor-hop.ts) on the gateway's framework: the same translation (lib/floor-translate.ts)
 * behind a Hono app served by @hono/node-server, as the gateway is served. Between floor-hop.ts and
 * this lies what the framework costs by itself: the adapter's Request and Response, routing, the
 * middleware chain. Between this and the gateway, what the gateway's own layers and features cost.
 *
 * `middlewares` (argv[4], default 0) pass-through middlewares go in front of the route, each an
 * `async (c, next) => { await next() }` that sets one context variable: the gateway runs five
 * on a 1.0 call: request log, path guard, trace context, metrics and auth.
 * A stream is written straight to the Node response, as the gateway's SSE is.
 *
 * Prints `READY <url>` on stdout once listening. Usage: floor-hono.ts <upstream-origin> [connections] [middlewares]
 */
import type http from 'node:http';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { floorTranslator, rpcError } from './lib/floor-translate.js';
import { hopUpstream, listenAsHop } from './lib/hop-listen.js';
import { answerMemoryProbes } from './memory-probes.mjs';

const { origin, pool } = hopUpstream('floor-hono.ts');
const floor = floorTranslator(origin, pool);
const utf8 = new TextDecoder('utf-8', { fatal: true });
const JSON_HEADERS = { 'content-type': 'application/json' };

const app = new Hono<{ Bindings: HttpBindings; Variables: Record<string, number> }>();
const middlewares = Number(process.argv[4] ?? 0);
for (let i = 0; i < middlewares; i++) {
  app.use('*', async (c, next) => {
    c.set(`m${i}`, i);
    await next();
  });
}
app.post('/', async (c) => {
  let text: string;
  try {
    text = utf8.decode(await c.req.arrayBuffer());
  } catch {
    return c.body(rpcError(null, -32700, 'Parse error'), 200, JSON_HEADERS);
  }
  const call = floor.call(text);
  if ('stream' in call) {
    await floor.streamed(c.env.outgoing, call.stream.id, call.stream.params);
    return RESPONSE_ALREADY_SENT;
  }
  return c.body(await call.answer, 200, JSON_HEADERS);
});

const server = createAdaptorServer({ fetch: app.fetch, serverOptions: { keepAliveTimeout: 65_000, requestTimeout: 0 } }) as http.Server;
answerMemoryProbes();
listenAsHop(server, pool);
