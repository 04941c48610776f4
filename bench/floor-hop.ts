/**
 * The floor of a TRANSLATING Node hop: what any gateway that reads the calls it relays must do at the
 * least, written as directly as Node allows, with no framework and no features. Where the bare proxy
 * (bare-proxy.ts) pipes bytes, this hop, for a 1.0 JSON-RPC call:
 *
 *   1. reads the body, decodes it and parses it as JSON;
 *   2. checks the envelope (`jsonrpc`, `id`, `method`) and that `params.message` has an id, a role
 *      and parts, by hand (no schema library);
 *   3. sends the call upstream under its own request id, re-serialised (undici `request` over the
 *      same pooled Agent as the gateway);
 *   4. SendMessage: reads the answer, parses it, checks it holds a task or a message, keeps the task
 *      in a bounded Map (a task registry at its simplest), and answers with the caller's id;
 *      SendStreamingMessage: parses the upstream SSE (eventsource-parser, as the gateway), parses
 *      each event's JSON and writes it back as one frame with the caller's id;
 *   5. 0.2.5 `message/send` (the facade's design: a send is read through the agent's stream, so the
 *      user sees every word): translates the message to 1.0 by hand, streams the turn, folds the text
 *      of every status message and artifact into one reply, and answers a 0.2.5 Task.
 *
 * No auth, logging, metrics, tracing, turn ordering, push or error mapping: a hop that does less
 * than this does not translate, so the gap between this and the bare proxy is what translation
 * costs in Node, and the gap between this and the gateway is what the gateway's layers and features cost.
 *
 * The translation itself is in lib/floor-translate.ts, shared with floor-hono.ts (the same hop on Hono).
 *
 * Prints `READY <url>` on stdout once listening. Usage: floor-hop.ts <upstream-origin> [connections]
 */
import http from 'node:http';
import { floorTranslator, rpcError } from './lib/floor-translate.js';
import { hopUpstream, listenAsHop } from './lib/hop-listen.js';
import { answerMemoryProbes } from './memory-probes.mjs';

const { origin, pool } = hopUpstream('floor-hop.ts');
const floor = floorTranslator(origin, pool);
const utf8 = new TextDecoder('utf-8', { fatal: true });

function answer(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

async function handle(res: http.ServerResponse, text: string): Promise<void> {
  const call = floor.call(text);
  if ('stream' in call) return floor.streamed(res, call.stream.id, call.stream.params);
  answer(res, await call.answer);
}

const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let text: string;
    try {
      text = utf8.decode(Buffer.concat(chunks));
    } catch {
      return answer(res, rpcError(null, -32700, 'Parse error'));
    }
    handle(res, text).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
});
answerMemoryProbes();
listenAsHop(server, pool);
