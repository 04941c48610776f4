/**
 * JSON-RPC 2.0: a response's id MUST be the same as the request's. An id JSON.parse cannot hold
 * (12345678901234567890 reads as 12345678901234567000, 1.0000000000000001 as 1) is answered as the caller
 * wrote it, on every JSON-RPC surface: the 1.0 binding at `POST /`, the 0.2.5 facade (its results, errors and
 * every SSE frame), and the relay in front of a 0.2.5 agent. The answers are checked as text: JSON.parse in
 * the test would lose the digits too.
 */
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { topLevelIdText } from '../../../src/protocol/jsonrpc-id-text.js';
import { API_KEY, postRaw, startFacadeGateway, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';
import { sendMessageParams } from '../../support/v1-message.js';

const IDS = ['12345678901234567890', '9007199254740993', '1.0000000000000001'];

/** A request body whose top-level id is written `id`, verbatim. */
const body = (id: string, method: string, params: unknown, jsonrpc = '2.0'): string =>
  JSON.stringify({ jsonrpc, id: 0, method, params }).replace('"id":0', `"id":${id}`);

/** The envelope's start every answer must have: its id as the request wrote it. */
const opening = (id: string): string => `{"jsonrpc":"2.0","id":${id},`;

/** The `data:` of each SSE frame of a raw event stream. */
const frameData = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice('data:'.length).trim());

function expectJsonAnswer(answer: { status: number; contentType: string; text: string }, id: string): void {
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.text.startsWith(opening(id)), answer.text.slice(0, 200)).toBe(true);
}

function expectEveryFrame(answer: { contentType: string; text: string }, id: string, atLeast = 1): void {
  expect(answer.contentType).toMatch(/^text\/event-stream/);
  const frames = frameData(answer.text);
  expect(frames.length).toBeGreaterThanOrEqual(atLeast);
  for (const data of frames) expect(data.startsWith(opening(id)), data.slice(0, 200)).toBe(true);
}

describe('the 1.0 JSON-RPC binding at POST /', () => {
  let gateway: RunningGateway;
  const headers = { 'A2A-Version': '1.0' };
  beforeAll(async () => {
    gateway = await startFacadeGateway();
  });
  afterAll(() => gateway?.close());

  it.each(IDS)('SendMessage with id %s: the result carries it as written', async (id) => {
    const answer = await postRaw(`${gateway.url}/`, body(id, 'SendMessage', sendMessageParams('hello')), headers);
    expect(answer.status).toBe(200);
    expectJsonAnswer(answer, id);
    expect(answer.body.result).toBeDefined();
  });

  it.each(IDS)('an error (GetTask of no task, a bad envelope) with id %s carries it as written', async (id) => {
    const missing = await postRaw(`${gateway.url}/`, body(id, 'GetTask', { id: 'no-such-task' }), headers);
    expectJsonAnswer(missing, id);
    expect(missing.body.error.code).toBe(-32001);
    const badEnvelope = await postRaw(`${gateway.url}/`, body(id, 'SendMessage', {}, '1.0'), headers);
    expectJsonAnswer(badEnvelope, id);
    expect(badEnvelope.body.error.code).toBe(-32600);
  });

  it.each(IDS)('SendStreamingMessage with id %s: every SSE frame carries it as written', async (id) => {
    const answer = await postRaw(`${gateway.url}/`, body(id, 'SendStreamingMessage', sendMessageParams('hello')), {
      ...headers,
      accept: 'text/event-stream',
    });
    expectEveryFrame(answer, id, 2);
  });
});

describe('the 0.2.5 facade', () => {
  let gateway: RunningGateway;
  const headers = { 'X-API-KEY': API_KEY };
  beforeAll(async () => {
    gateway = await startFacadeGateway({ bailian: { 'api-key': API_KEY } });
  });
  afterAll(() => gateway?.close());

  it.each(IDS)('message/send and tasks/get with id %s: the results carry it as written', async (id) => {
    const sent = await postRaw(`${gateway.url}/`, body(id, 'message/send', { message: userMessage({ text: 'hello' }) }), headers);
    expectJsonAnswer(sent, id);
    expect(sent.body.result.kind).toBe('task');
    const got = await postRaw(`${gateway.url}/`, body(id, 'tasks/get', { id: sent.body.result.id }), headers);
    expectJsonAnswer(got, id);
    expect(got.body.result.id).toBe(sent.body.result.id);
  });

  it.each(IDS)('an error with id %s (tasks/get of no task, tasks/cancel without an id) carries it as written', async (id) => {
    const missing = await postRaw(`${gateway.url}/`, body(id, 'tasks/get', { id: 'no-such-task' }), headers);
    expectJsonAnswer(missing, id);
    expect(missing.body.error.code).toBe(-32001);
    const invalid = await postRaw(`${gateway.url}/`, body(id, 'tasks/cancel', {}), headers);
    expectJsonAnswer(invalid, id);
    expect(invalid.body.error.code).toBe(-32602);
  });

  it.each(IDS)('message/stream with id %s: every SSE frame carries it as written, a refusal’s one frame too', async (id) => {
    const streamed = await postRaw(`${gateway.url}/stream`, body(id, 'message/stream', { message: userMessage({ text: 'hello' }) }), headers);
    expectEveryFrame(streamed, id, 3);
    const refused = await postRaw(`${gateway.url}/stream`, body(id, 'message/stream', { message: { kind: 'message' } }), headers);
    expectEveryFrame(refused, id);
    expect(refused.body.error.code).toBe(-32602);
  });
});

/**
 * A 0.2.5 agent whose parser keeps every digit (as Python's does): it answers with the id's text as it was
 * sent. `message/stream` answers one frame and stays open; a message saying `hang` is never answered.
 */
async function startVerbatimAgent(): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET') {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
        const card = { protocolVersion: '0.2.5', name: 'verbatim', description: 'd', url, version: '1', skills: [] };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ ...card, capabilities: { streaming: true }, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'] }),
        );
        return;
      }
      bodies.push(text);
      if (text.includes('"text":"hang"')) return;
      const message = { kind: 'message', messageId: 'm-1', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] };
      const envelope = `{"jsonrpc":"2.0","id":${topLevelIdText(text) ?? 'null'},"result":${JSON.stringify(message)}}`;
      if (text.includes('"method":"message/stream"')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${envelope}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(envelope);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

async function stopAgent(agent: { server: Server } | undefined): Promise<void> {
  agent?.server.closeAllConnections();
  await new Promise((resolve) => agent?.server.close(resolve));
}

describe('the facade relaying a 0.2.5 agent', () => {
  let agent: Awaited<ReturnType<typeof startVerbatimAgent>>;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startVerbatimAgent();
    gateway = await startRelayingFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await stopAgent(agent);
  });

  it.each(IDS)('relays id %s to the agent as written, so the agent’s answer carries it', async (id) => {
    const answer = await postRaw(`${gateway.url}/`, body(id, 'message/send', { message: userMessage({ text: 'hi' }) }));
    expect(topLevelIdText(agent.bodies.at(-1) ?? '')).toBe(id);
    expect(answer.text.startsWith(opening(id)), answer.text.slice(0, 200)).toBe(true);
  });
});

describe('the relay’s own error when the agent is out of reach', () => {
  let gateway: RunningGateway;
  let agent: Awaited<ReturnType<typeof startVerbatimAgent>>;
  beforeAll(async () => {
    agent = await startVerbatimAgent();
    gateway = await startRelayingFacadeGateway({ upstream: { url: agent.url } });
    // The card is read; then the agent goes away.
    await postRaw(`${gateway.url}/`, body('1', 'message/send', { message: userMessage({ text: 'hi' }) }));
    await stopAgent(agent);
  });
  afterAll(() => gateway?.close());

  it.each(IDS)('message/send with id %s: the -32603 carries it as written', async (id) => {
    const answer = await postRaw(`${gateway.url}/`, body(id, 'message/send', { message: userMessage({ text: 'hi' }) }));
    expectJsonAnswer(answer, id);
    expect(answer.body.error).toBeDefined();
  });
});

describe('the relay’s own frame ending an agent’s stream gone quiet', () => {
  let gateway: RunningGateway;
  let agent: Awaited<ReturnType<typeof startVerbatimAgent>>;
  beforeAll(async () => {
    agent = await startVerbatimAgent();
    gateway = await startRelayingFacadeGateway({ upstream: { url: agent.url, 'stream-idle-timeout-ms': 300 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await stopAgent(agent);
  });

  it.each(IDS)('message/stream with id %s: the agent’s frame and the relay’s error frame carry it as written', async (id) => {
    const answer = await postRaw(`${gateway.url}/stream`, body(id, 'message/stream', { message: userMessage({ text: 'hi' }) }));
    expectEveryFrame(answer, id, 2);
    expect(frameData(answer.text).at(-1)).toContain('"error"');
  });
});

describe('a call refused before any surface reads it (a forwarded client over its cap)', () => {
  const forwarded = { 'x-forwarded-for': '203.0.113.7' };
  let gateway: RunningGateway;
  let agent: Awaited<ReturnType<typeof startVerbatimAgent>>;
  const held = new AbortController();
  beforeAll(async () => {
    agent = await startVerbatimAgent();
    gateway = await startRelayingFacadeGateway({ 'trust-proxy': true, server: { 'max-connections-per-client': 1 }, upstream: { url: agent.url } });
    // One call in flight, which the agent never answers: the client's one place.
    const hanging = body('1', 'message/send', { message: userMessage({ text: 'hang' }) });
    void fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...forwarded },
      body: hanging,
      signal: held.signal,
    }).catch(() => undefined);
    while (agent.bodies.length === 0) await sleep(10);
  });
  afterAll(async () => {
    held.abort();
    await gateway?.close();
    await stopAgent(agent);
  });

  it.each(IDS)('with id %s: the 1.0 error, the 0.2.5 error and its one frame carry it as written', async (id) => {
    const v1 = await postRaw(`${gateway.url}/`, body(id, 'SendMessage', sendMessageParams('hi')), { 'A2A-Version': '1.0', ...forwarded });
    expect(v1.status).toBe(429);
    expectJsonAnswer(v1, id);
    const sent = await postRaw(`${gateway.url}/`, body(id, 'message/send', { message: userMessage({ text: 'hi' }) }), forwarded);
    expectJsonAnswer(sent, id);
    expect(sent.body.error).toBeDefined();
    const streamed = await postRaw(`${gateway.url}/stream`, body(id, 'message/stream', { message: userMessage({ text: 'hi' }) }), forwarded);
    expectEveryFrame(streamed, id);
    expect(streamed.body.error).toBeDefined();
  });
});
