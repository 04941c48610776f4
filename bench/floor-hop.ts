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
 * Prints `READY <url>` on stdout once listening. Usage: floor-hop.ts <upstream-origin> [connections]
 */
import http from 'node:http';
import { createParser } from 'eventsource-parser';
import { request } from 'undici';
import { hopUpstream, listenAsHop } from './lib/hop-listen.js';
import { answerMemoryProbes } from './memory-probes.mjs';

const { origin, pool } = hopUpstream('floor-hop.ts');
const upstreamUrl = `${origin}/`;
const UPSTREAM_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const STREAM_HEADERS = { ...UPSTREAM_HEADERS, accept: 'text/event-stream' };
const utf8 = new TextDecoder('utf-8', { fatal: true });

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The least a translating hop checks of a SendMessage request. */
function validMessage(params: unknown): boolean {
  if (!isObject(params) || !isObject(params.message)) return false;
  const { messageId, role, parts } = params.message;
  return typeof messageId === 'string' && typeof role === 'string' && Array.isArray(parts) && parts.every(isObject);
}

const MAX_TASKS = 10_000;
const tasks = new Map<string, Json>();
function remember(task: Json): void {
  const id = String(task.id);
  tasks.delete(id);
  tasks.set(id, task);
  if (tasks.size > MAX_TASKS) tasks.delete(tasks.keys().next().value!);
}

let sequence = 0;

function answer(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

const rpcError = (id: unknown, code: number, message: string): string => JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });

async function unary(res: http.ServerResponse, id: unknown, method: string, params: Json): Promise<void> {
  const upstream = await request(upstreamUrl, {
    dispatcher: pool,
    method: 'POST',
    headers: UPSTREAM_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++sequence, method, params }),
  });
  const reply = JSON.parse(await upstream.body.text()) as Json;
  const result = reply.result;
  if (!isObject(result) || (!isObject(result.task) && !isObject(result.message))) return answer(res, rpcError(id, -32603, 'Internal error'));
  if (isObject(result.task)) remember(result.task);
  answer(res, JSON.stringify({ jsonrpc: '2.0', id, result }));
}

async function streamed(res: http.ServerResponse, id: unknown, params: Json): Promise<void> {
  const upstream = await request(upstreamUrl, {
    dispatcher: pool,
    method: 'POST',
    headers: STREAM_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++sequence, method: 'SendStreamingMessage', params }),
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.once('close', () => upstream.body.destroy());
  const parser = createParser({
    onEvent: (event) => {
      const result = (JSON.parse(event.data) as Json).result;
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
    },
  });
  for await (const chunk of upstream.body) {
    // The frames of one upstream chunk leave in one write.
    res.cork();
    parser.feed(utf8.decode(chunk as Buffer, { stream: true }));
    res.uncork();
    // Backpressure, as the gateway keeps it: a slow reader holds the upstream back.
    if (res.writableNeedDrain) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  res.end();
}

type Part = { text?: unknown };
const textOf = (parts: unknown): string =>
  Array.isArray(parts) ? (parts as Part[]).map((part) => (typeof part.text === 'string' ? part.text : '')).join('') : '';

/** A 0.2.5 message/send read through the 1.0 agent's stream and folded into one 0.2.5 Task. */
async function facadeSend(res: http.ServerResponse, id: unknown, params: Json): Promise<void> {
  const message = params.message as Json & { parts: Array<{ kind?: unknown; text?: unknown }> };
  const v1 = {
    messageId: message.messageId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: message.parts.map((part) => ({ text: typeof part.text === 'string' ? part.text : '' })),
  };
  const upstream = await request(upstreamUrl, {
    dispatcher: pool,
    method: 'POST',
    headers: STREAM_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++sequence, method: 'SendStreamingMessage', params: { message: v1 } }),
  });
  let taskId = '';
  let contextId = '';
  let state = '';
  let reply = '';
  const parser = createParser({
    onEvent: (event) => {
      const result = (JSON.parse(event.data) as Json).result as Json;
      const task = (result.task ?? result.statusUpdate) as Json | undefined;
      if (task) {
        taskId = String(task.id ?? task.taskId);
        contextId = String(task.contextId);
        const status = task.status as Json;
        state = String(status.state);
        reply += textOf((status.message as Json | undefined)?.parts);
      }
      const artifact = (result.artifactUpdate as Json | undefined)?.artifact as Json | undefined;
      if (artifact) reply += textOf(artifact.parts);
    },
  });
  for await (const chunk of upstream.body) parser.feed(utf8.decode(chunk as Buffer, { stream: true }));
  const v025State = state === 'TASK_STATE_INPUT_REQUIRED' ? 'input-required' : state.replace(/^TASK_STATE_/, '').toLowerCase();
  const result = {
    kind: 'task',
    id: taskId,
    contextId,
    status: { state: v025State, message: { kind: 'message', role: 'agent', messageId: `r${sequence}`, parts: [{ kind: 'text', text: reply }] } },
  };
  remember(result);
  answer(res, JSON.stringify({ jsonrpc: '2.0', id, result }));
}

function handle(res: http.ServerResponse, text: string): Promise<void> | void {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return answer(res, rpcError(null, -32700, 'Parse error'));
  }
  if (!isObject(payload) || payload.jsonrpc !== '2.0' || typeof payload.method !== 'string') {
    return answer(res, rpcError(isObject(payload) ? payload.id : null, -32600, 'Invalid request'));
  }
  const { id, method, params } = payload;
  if (method === 'message/send')
    return validMessage(params) ? facadeSend(res, id, params as Json) : answer(res, rpcError(id, -32602, 'Invalid params'));
  if (method !== 'SendMessage' && method !== 'SendStreamingMessage') return answer(res, rpcError(id, -32601, 'Method not found'));
  if (!validMessage(params)) return answer(res, rpcError(id, -32602, 'Invalid params'));
  return method === 'SendMessage' ? unary(res, id, method, params as Json) : streamed(res, id, params as Json);
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
    Promise.resolve(handle(res, text)).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
});
answerMemoryProbes();
listenAsHop(server, pool);
