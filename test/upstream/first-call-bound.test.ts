/**
 * The first call to an agent whose protocol could not be detected at start (its card refused, then answering):
 * that call detects it, and fetches the card once, not once for the detection and again for the client;
 * and the detection, the card and the call are bounded together by `request-timeout-ms` from the call's start,
 * not each by its own (which let such a call last up to three times the setting). A gRPC agent (its card over
 * HTTP in front of it), a 1.0 JSON-RPC agent and a 0.2.5 one.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { GATEWAY_FAILURES } from '../../src/model/index.js';
import { connectAgent } from '../../src/cli/agent.js';
import { connectUpstream } from '../../src/upstream/connect.js';
import { startFakeGrpcAgent } from '../e2e/grpc/fake-grpc-agent.js';
import { jsonRpcAgentCard, readJsonBody } from '../support/json-rpc-agent.js';
import { defaultCard } from '../support/fake-v025.js';
import { rejection } from '../support/rejection.js';
import { sendMessageParams } from '../support/v1-message.js';
import { closeAll, ctx, open } from './support.js';

afterEach(closeAll);

const PATH = '/.well-known/agent-card.json';

/** What a test sets of the card server: every GET answered after `delayMs`; the card refused (503) while `refusing`; GETs counted. */
interface CardServer {
  url: string;
  fetches: number;
  refusing: boolean;
  delayMs: number;
}

/**
 * An HTTP server answering the card `cardOf(url)` at `cardPath` (default `agent-card.json`), as CardServer says, a
 * POST with `other`, and any other request (the other card the detection asks for) with 404.
 */
async function startCardServer(
  cardOf: (url: string) => unknown,
  other?: (req: IncomingMessage, res: ServerResponse) => void,
  cardPath = PATH,
): Promise<CardServer> {
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url !== cardPath) return void res.writeHead(404).end();
    if (state.refusing) return void res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cardOf(state.url)));
  };
  const server = createServer((req, res) => {
    if (req.method === 'POST' && other) return other(req, res);
    if (req.url === cardPath) state.fetches += 1;
    const timer = setTimeout(() => answer(req, res), state.delayMs);
    res.once('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const state: CardServer = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fetches: 0, refusing: true, delayMs: 0 };
  open.push({
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return state;
}

/** A gRPC agent (unary calls hang when `hang`) behind a card server of the test's. */
async function grpcAgentBehindCard(hang = false): Promise<CardServer> {
  const agent = await startFakeGrpcAgent();
  open.push(agent);
  agent.behave = hang ? { kind: 'hang' } : { kind: 'task' };
  const card: unknown = await (await fetch(`${agent.url}${PATH}`)).json();
  return startCardServer(() => card);
}

/** A 1.0 JSON-RPC agent on the card server: GetTask answered, SendMessage never. */
function jsonRpcAgent(): Promise<CardServer> {
  const task = { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } };
  const about = { name: 'first-call', description: 'first call', skill: { id: 's', name: 's', description: 's' } };
  return startCardServer(
    (url) => jsonRpcAgentCard(url, about),
    (req, res) =>
      void readJsonBody(req).then((body: { id: unknown; method: string }) => {
        if (body.method === 'SendMessage') return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: task }));
      }),
  );
}

/** A 0.2.5 JSON-RPC agent on the card server (its card at `agent.json`; a 0.3 one's at `agent-card.json`): `tasks/get` answered. */
function v025Agent(protocolVersion: '0.2.5' | '0.3.0' = '0.2.5'): Promise<CardServer> {
  const task = { kind: 'task', id: 'task-1', contextId: 'ctx-1', status: { state: 'working' } };
  const card = (url: string) => ({ ...defaultCard(url), url: `${url}/`, protocolVersion });
  return startCardServer(
    card,
    (req, res) =>
      void readJsonBody(req).then((body: { id: unknown }) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: task })),
      ),
    protocolVersion === '0.2.5' ? '/.well-known/agent.json' : PATH,
  );
}

/** The gateway's client for the agent, its card refused at start: the first call then detects the protocol. */
async function connectedAfterFailedStart(card: CardServer, requestTimeoutMs = 60_000, refusing = false, protocol = 'auto') {
  const bounds = { 'request-timeout-ms': requestTimeoutMs, 'headers-timeout-ms': requestTimeoutMs };
  const config = UpstreamConfig.parse({ url: card.url, protocol, ...bounds });
  const connected = await connectUpstream(card.url, config, createLogger('silent'));
  open.push(connected.upstream);
  expect(connected.protocol).toBeUndefined();
  card.refusing = refusing;
  card.fetches = 0;
  return connected;
}

describe.each([
  ['a gRPC agent', grpcAgentBehindCard, 'GRPC', 'auto'],
  ['a 1.0 JSON-RPC agent', jsonRpcAgent, 'JSONRPC', 'auto'],
  ['a 0.2.5 agent', () => v025Agent(), 'JSONRPC', 'auto'],
  ['a 0.3 agent (upstream.protocol: 0.3)', () => v025Agent('0.3.0'), 'JSONRPC', '0.3'],
] as const)('the first call to %s whose detection failed at start', (_name, start, binding, protocol) => {
  it('fetches the card once: the detection hands it to the client', async () => {
    const card = await start();
    const connected = await connectedAfterFailedStart(card, 60_000, false, protocol);
    const task = await connected.upstream.getTask({ id: 'task-1' }, ctx());
    expect(task.id).toBe('task-1');
    expect(connected.binding).toBe(binding);
    expect(card.fetches).toBe(1);
    // Later calls fetch no card either.
    await connected.upstream.getTask({ id: 'task-1' }, ctx());
    expect(card.fetches).toBe(1);
  });

  it('the CLI (a2a-bridge call, cards) reads the card once too', async () => {
    const card = await start();
    card.refusing = false;
    const agent = await connectAgent(card.url, { protocol, 'timeout-ms': '60000' });
    open.push({ close: () => agent.close() });
    expect((await agent.upstream.getTask({ id: 'task-1' }, ctx())).id).toBe('task-1');
    expect(card.fetches).toBe(1);
  });
});

describe('the first call whose detection failed at start, bounded as a whole by request-timeout-ms', () => {
  // A card answered after 1.4 s and a call that never is, bounded by 1.5 s: answered "timed out" at 1.5 s from the
  // call's start. Each bounded on its own it took 2.9 s (card once) to 4.3 s (card twice): the margin is for a loaded host.
  const BOUND_MS = 1_500;
  const CARD_MS = 1_400;
  const LATEST_MS = 2_700;

  it.each([
    ['a gRPC agent', () => grpcAgentBehindCard(true)],
    ['a 1.0 JSON-RPC agent', jsonRpcAgent],
  ] as const)('%s: a send is answered "timed out" within the one bound', async (_name, start) => {
    const card = await start();
    const connected = await connectedAfterFailedStart(card, BOUND_MS);
    card.delayMs = CARD_MS;
    const began = Date.now();
    const error = await rejection(connected.upstream.sendMessage(sendMessageParams('hello'), ctx()));
    const took = Date.now() - began;
    expect(error).toMatchObject({ message: GATEWAY_FAILURES.upstreamTimedOut });
    expect(took).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(took).toBeLessThan(LATEST_MS);
  });

  it('a stream waits for the detection no longer than the bound, though each card is answered within it', async () => {
    // Both cards (agent-card.json refused, agent.json missing) answered after 1.4 s: the detection fails after 2.8 s.
    const card = await grpcAgentBehindCard();
    const connected = await connectedAfterFailedStart(card, BOUND_MS, true);
    card.delayMs = CARD_MS;
    const began = Date.now();
    const stream = connected.upstream.sendStreamingMessage(sendMessageParams('hello'), ctx())[Symbol.asyncIterator]();
    const error = await rejection(stream.next());
    const took = Date.now() - began;
    expect(error).toMatchObject({ message: GATEWAY_FAILURES.upstreamTimedOut });
    expect(took).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(took).toBeLessThan(LATEST_MS);
  });
});
