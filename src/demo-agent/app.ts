import { Hono, type Context } from 'hono';
import { A2AError, toA2AError, toJsonRpcError, type AgentCard } from '../model/index.js';
import type { JsonRpcId } from '../surfaces/shared/jsonrpc.js';
import { buildDemoCard, buildExtendedDemoCard, cardEtag, DEMO_AGENT_NAME } from './card.js';
import { RPC_METHODS, checkProtocolVersion, type RpcScope } from './rpc.js';
import { DemoRuntime, type DemoRuntimeOptions } from './runtime.js';
import { jsonRpcSseResponse } from './sse.js';

export interface DemoAgentOptions extends DemoRuntimeOptions {
  /** Card name (default `a2a-bridge-demo`). */
  name?: string;
  /** Base URL advertised in the card; by default the origin the request was addressed to. */
  baseUrl?: string;
  /** SSE keep-alive comment interval (default 15 s, like sse-starlette). */
  pingIntervalMs?: number;
}

const CARD_CACHE_CONTROL = 'public, max-age=60';

/** The demo agent as a Hono app: card, health and A2A 1.0 JSON-RPC on `POST /`. */
export function createDemoAgentApp(options: DemoAgentOptions = {}): { app: Hono; runtime: DemoRuntime } {
  const runtime = new DemoRuntime(options);
  const name = options.name ?? DEMO_AGENT_NAME;
  const pingIntervalMs = options.pingIntervalMs ?? 15_000;
  const startedAt = new Date().toUTCString();
  const cards = new CardCache((baseUrl) => buildDemoCard(baseUrl, name));
  const baseUrlOf = (c: Context): string => options.baseUrl ?? new URL(c.req.url).origin;

  const app = new Hono();

  app.get('/health', (c) => c.json({ status: 'healthy' }));

  app.get('/.well-known/agent-card.json', (c) => {
    const { card, etag } = cards.get(baseUrlOf(c));
    const headers = { 'cache-control': CARD_CACHE_CONTROL, etag, 'last-modified': startedAt };
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    return c.json(card, 200, headers);
  });

  app.get('/', (c) => c.text('Method Not Allowed', 405, { allow: 'POST' }));

  app.post('/', async (c) => {
    const scope: RpcScope = { runtime, extendedCard: () => buildExtendedDemoCard(baseUrlOf(c), name) };
    return handleJsonRpc(await c.req.text(), c.req.header('a2a-version'), scope, pingIntervalMs);
  });

  return { app, runtime };
}

async function handleJsonRpc(body: string, versionHeader: string | undefined, scope: RpcScope, pingIntervalMs: number): Promise<Response> {
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch (error) {
    return rpcError(null, A2AError.parse(error instanceof Error ? error.message : 'Parse error'));
  }
  if (Array.isArray(request)) return rpcError(null, A2AError.invalidRequest('Batch requests are not supported'));
  if (request === null || typeof request !== 'object') {
    return rpcError(null, A2AError.invalidRequest('Invalid request: the body must be a JSON object'));
  }
  const envelope = request as Record<string, unknown>;
  const id = isJsonRpcId(envelope.id) ? envelope.id : null;
  if (envelope.jsonrpc !== '2.0') {
    return rpcError(id, A2AError.invalidRequest("Invalid request: 'jsonrpc' must be exactly '2.0'"));
  }
  if (typeof envelope.method !== 'string') {
    return rpcError(id, A2AError.invalidRequest("Invalid request: 'method' must be a string"));
  }
  const method = Object.hasOwn(RPC_METHODS, envelope.method) ? RPC_METHODS[envelope.method] : undefined;
  if (!method) return rpcError(id, A2AError.methodNotFound(envelope.method));

  try {
    checkProtocolVersion(versionHeader);
    const outcome = await method(envelope.params, scope);
    if (outcome.kind === 'stream') return jsonRpcSseResponse(outcome.events, id, pingIntervalMs);
    return rpcJson({ result: outcome.result, id, jsonrpc: '2.0' });
  } catch (error) {
    return rpcError(id, toA2AError(error));
  }
}

function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number' || value === null;
}

/** JSON-RPC replies are always HTTP 200, keys in iac-code's order: result|error, id, jsonrpc. */
function rpcJson(payload: unknown): Response {
  return new Response(JSON.stringify(payload), { status: 200, headers: { 'content-type': 'application/json' } });
}

function rpcError(id: JsonRpcId, error: A2AError): Response {
  return rpcJson({ error: toJsonRpcError(error), id, jsonrpc: '2.0' });
}

/** Cards and their ETags per advertised base URL (a handful at most: one per Host a caller used). */
class CardCache {
  private readonly entries = new Map<string, { card: AgentCard; etag: string }>();

  constructor(private readonly build: (baseUrl: string) => AgentCard) {}

  get(baseUrl: string): { card: AgentCard; etag: string } {
    const cached = this.entries.get(baseUrl);
    if (cached) return cached;
    const card = this.build(baseUrl);
    const entry = { card, etag: cardEtag(card) };
    if (this.entries.size >= 16) this.entries.clear();
    this.entries.set(baseUrl, entry);
    return entry;
  }
}
