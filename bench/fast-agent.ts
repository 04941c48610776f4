/**
 * A minimal, fast A2A 1.0 agent for the benchmark: plain node:http, no framework, no JSON parsing of
 * requests, responses built from fixed templates. It answers exactly what the bench needs:
 *
 *   GET  /.well-known/agent-card.json   card whose first interface is JSONRPC at this server's `/`
 *   GET  /health                         200
 *   POST / SendMessage                   `{task}` in TASK_STATE_INPUT_REQUIRED carrying the reply
 *   POST / SendStreamingMessage          SSE: task, N WORKING text chunks, INPUT_REQUIRED; or idle
 *
 * A message that names a task (the facade aims a conversation's follow-up at its paused task) continues that task in
 * its context, as iac-code does; any other message gets a new task `t<n>` in a new context `c<n>`.
 *
 * Stream shape comes from the message text (it survives the gateway, which forwards the message) or,
 * for direct calls, from the query: text `bench:stream:<chunks>:<delayMs>` / `?chunks=&delayMs=`,
 * text `bench:idle` / `?idle=1` (the Task, then nothing until the client leaves).
 *
 * Every chunk carries its send time twice: `metadata.sentAt` and `t=<ns>` in the chunk text (the
 * 0.2.5 facade drops event metadata but keeps text). The time is process.hrtime.bigint(), i.e.
 * CLOCK_MONOTONIC in ns, which on Linux is one clock for every process of the host.
 *
 * Prints `READY <url>` on stdout once listening. Usage: fast-agent.ts [port]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { drained } from './lib/drained.js';

const MAX_BODY = 1024 * 1024;
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

// Request ids and methods are read with a regex over the first bytes, not JSON.parse: the envelope
// fields precede `params` in every client the bench uses, and 16 KiB bodies stay cheap to accept.
const ID_PATTERN = /[{,]\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+|null)/;
const METHOD_PATTERN = /"method"\s*:\s*"([^"]+)"/;
const STREAM_PATTERN = /bench:stream:(\d+):(\d+(?:\.\d+)?)/;
const TASK_ID_PATTERN = /"taskId"\s*:\s*"([^"\\]*)"/;
const CONTEXT_ID_PATTERN = /"contextId"\s*:\s*"([^"\\]*)"/;

let sequence = 0;
let cardBody = '';

interface StreamPlan {
  idle: boolean;
  chunks: number;
  delayMs: number;
}

function planOf(body: string, query: URLSearchParams): StreamPlan {
  if (query.get('idle') === '1' || body.includes('bench:idle')) return { idle: true, chunks: 0, delayMs: 0 };
  const match = STREAM_PATTERN.exec(body);
  const chunks = Number(query.get('chunks') ?? match?.[1] ?? 3);
  const delayMs = Number(query.get('delayMs') ?? match?.[2] ?? 0);
  return { idle: false, chunks: Math.min(Math.max(chunks, 0), 1_000_000), delayMs: Math.min(Math.max(delayMs, 0), 10_000) };
}

/** With Content-Length: writeHead() commits the headers, so a later end(body) would fall back to chunked encoding. */
function sendJson(res: http.ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

const rpc = (id: string, result: string): string => `{"jsonrpc":"2.0","id":${id},"result":${result}}`;

/** The task a message goes on: the one it names, in the context it names; else a new one. */
function taskOf(body: string, n: number): { taskId: string; contextId: string } {
  const taskId = TASK_ID_PATTERN.exec(body)?.[1];
  const contextId = taskId === undefined ? undefined : CONTEXT_ID_PATTERN.exec(body)?.[1];
  return taskId !== undefined && contextId !== undefined ? { taskId, contextId } : { taskId: `t${n}`, contextId: `c${n}` };
}

function sendMessageBody(id: string, body: string): string {
  const n = ++sequence;
  const { taskId, contextId } = taskOf(body, n);
  return rpc(
    id,
    `{"task":{"id":"${taskId}","contextId":"${contextId}","status":{"state":"TASK_STATE_INPUT_REQUIRED",` +
      `"message":{"messageId":"m${n}","role":"ROLE_AGENT","parts":[{"text":"ok"}]}}}}`,
  );
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function stream(res: http.ServerResponse, id: string, body: string, plan: StreamPlan): Promise<void> {
  const n = ++sequence;
  const { taskId, contextId } = taskOf(body, n);
  const ref = `"taskId":"${taskId}","contextId":"${contextId}"`;
  let open = true;
  res.once('close', () => {
    open = false;
  });
  res.writeHead(200, SSE_HEADERS);
  res.write(`data: ${rpc(id, `{"task":{"id":"${taskId}","contextId":"${contextId}","status":{"state":"TASK_STATE_SUBMITTED"}}}`)}\n\n`);
  if (plan.idle) return; // stays open until the client goes away
  const head = `data: {"jsonrpc":"2.0","id":${id},"result":{"statusUpdate":{${ref},"status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m${n}","role":"ROLE_AGENT","parts":[{"text":"t=`;
  for (let seq = 1; seq <= plan.chunks && open; seq++) {
    if (plan.delayMs > 0) await wait(plan.delayMs);
    if (!open) break;
    const sentAt = process.hrtime.bigint().toString();
    const fits = res.write(`${head}${sentAt} "}]}},"metadata":{"sentAt":"${sentAt}","seq":${seq}}}}}\n\n`);
    if (!fits && open) await drained(res);
  }
  if (!open) return;
  res.end(`data: ${rpc(id, `{"statusUpdate":{${ref},"status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`)}\n\n`);
}

function handlePost(req: http.IncomingMessage, res: http.ServerResponse, query: URLSearchParams): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY) {
      res.writeHead(413).end();
      return;
    }
    const body = Buffer.concat(chunks, size).toString('utf8');
    const id = ID_PATTERN.exec(body)?.[1] ?? 'null';
    const method = METHOD_PATTERN.exec(body)?.[1];
    if (method === 'SendMessage') {
      sendJson(res, sendMessageBody(id, body));
    } else if (method === 'SendStreamingMessage') {
      stream(res, id, body, planOf(body, query)).catch(() => res.destroy());
    } else {
      sendJson(res, `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`);
    }
  });
}

const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
  const [path = '/', search = ''] = (req.url ?? '/').split('?', 2);
  if (req.method === 'POST' && path === '/') return handlePost(req, res, new URLSearchParams(search));
  if (req.method === 'GET' && path === '/.well-known/agent-card.json') return sendJson(res, cardBody);
  if (req.method === 'GET' && path === '/health') return sendJson(res, '{"status":"healthy"}');
  res.writeHead(404).end();
});
server.maxRequestsPerSocket = 0;

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cardBody = JSON.stringify({
    name: 'bench fast agent',
    description: 'Answers instantly from templates (benchmark upstream).',
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Answers ok.', tags: ['bench'] }],
  });
  process.stdout.write(`READY ${url}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
