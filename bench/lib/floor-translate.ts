/**
 * What the floor hops (floor-hop.ts on node:http, floor-hono.ts on Hono) do with a call, whatever
 * serves it: the least a hop that reads what it relays must do (see floor-hop.ts). Each unary
 * answer is returned as its JSON text, so each front writes it its own way.
 */
import type http from 'node:http';
import { createParser } from 'eventsource-parser';
import { request, type Dispatcher } from 'undici';
import { drained } from './drained.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const utf8 = new TextDecoder('utf-8', { fatal: true });
const UPSTREAM_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const STREAM_HEADERS = { ...UPSTREAM_HEADERS, accept: 'text/event-stream' };

/** The least a translating hop checks of a SendMessage request. */
function validMessage(params: unknown): boolean {
  if (!isObject(params) || !isObject(params.message)) return false;
  const { messageId, role, parts } = params.message;
  return typeof messageId === 'string' && typeof role === 'string' && Array.isArray(parts) && parts.every(isObject);
}

export const rpcError = (id: unknown, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });

/** A parsed call: a unary answer to write, or a stream the front relays with `streamed`. */
export type FloorCall = { answer: Promise<string> | string } | { stream: { id: unknown; params: Json } };

type Part = { text?: unknown };
const textOf = (parts: unknown): string =>
  Array.isArray(parts) ? (parts as Part[]).map((part) => (typeof part.text === 'string' ? part.text : '')).join('') : '';

export function floorTranslator(origin: string, pool: Dispatcher) {
  const upstreamUrl = `${origin}/`;
  const MAX_TASKS = 10_000;
  const tasks = new Map<string, Json>();
  let sequence = 0;

  function remember(task: Json): void {
    const id = String(task.id);
    tasks.delete(id);
    tasks.set(id, task);
    if (tasks.size > MAX_TASKS) tasks.delete(tasks.keys().next().value!);
  }

  const post = (method: string, params: Json, headers: Record<string, string>) =>
    request(upstreamUrl, { dispatcher: pool, method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++sequence, method, params }) });

  async function unary(id: unknown, method: string, params: Json): Promise<string> {
    const upstream = await post(method, params, UPSTREAM_HEADERS);
    const reply = JSON.parse(await upstream.body.text()) as Json;
    const result = reply.result;
    if (!isObject(result) || (!isObject(result.task) && !isObject(result.message))) return rpcError(id, -32603, 'Internal error');
    if (isObject(result.task)) remember(result.task);
    return JSON.stringify({ jsonrpc: '2.0', id, result });
  }

  /** A 0.2.5 message/send read through the 1.0 agent's stream and folded into one 0.2.5 Task. */
  async function facadeSend(id: unknown, params: Json): Promise<string> {
    const message = params.message as Json & { parts: Array<{ kind?: unknown; text?: unknown }> };
    const v1 = {
      messageId: message.messageId,
      role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
      parts: message.parts.map((part) => ({ text: typeof part.text === 'string' ? part.text : '' })),
    };
    const upstream = await post('SendStreamingMessage', { message: v1 }, STREAM_HEADERS);
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
    return JSON.stringify({ jsonrpc: '2.0', id, result });
  }

  /** The request body's text (already UTF-8 decoded) as a call. */
  function call(text: string): FloorCall {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return { answer: rpcError(null, -32700, 'Parse error') };
    }
    if (!isObject(payload) || payload.jsonrpc !== '2.0' || typeof payload.method !== 'string') {
      return { answer: rpcError(isObject(payload) ? payload.id : null, -32600, 'Invalid request') };
    }
    const { id, method, params } = payload;
    if (method === 'message/send') return { answer: validMessage(params) ? facadeSend(id, params as Json) : rpcError(id, -32602, 'Invalid params') };
    if (method !== 'SendMessage' && method !== 'SendStreamingMessage') return { answer: rpcError(id, -32601, 'Method not found') };
    if (!validMessage(params)) return { answer: rpcError(id, -32602, 'Invalid params') };
    return method === 'SendMessage' ? { answer: unary(id, method, params as Json) } : { stream: { id, params: params as Json } };
  }

  /** A SendStreamingMessage relayed onto `res`: each upstream event parsed and written as its own frame. */
  async function streamed(res: http.ServerResponse, id: unknown, params: Json): Promise<void> {
    const upstream = await post('SendStreamingMessage', params, STREAM_HEADERS);
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
      if (res.writableNeedDrain) await drained(res);
    }
    res.end();
  }

  return { call, streamed };
}
