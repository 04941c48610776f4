/**
 * The facade in front of a 0.2.5 agent relays instead of translating: the official 0.2.5 client
 * (a2a-js 0.2.5 A2AClient) → gateway facade → recording proxy → a REAL a2a-js 0.2.5 server. What
 * the caller receives must be exactly what the agent wrote (the proxy keeps the agent's bytes); the
 * facade only rewrites the card and applies its own key.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startSdkV025Agent, v025Reply, V025_AGENT_NAME, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { rpcError, rpcResult, startFakeV025 } from '../../support/fake-v025.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { API_KEY, collect, sdkParams, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';
import { stubKeyedFetch } from '../../support/keyed-fetch.js';

const UPSTREAM_TOKEN = 'upstream-token-42';
/** fetch as it is, for the calls that choose their own headers (the A2AClient's fetch gets the key added). */
const rawFetch = globalThis.fetch;
const withKey = { 'content-type': 'application/json', 'X-API-KEY': API_KEY };

const rpcBody = (id: string, method: string, body: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, method, params: body });

/** The `data:` payloads of an SSE body, in order. */
function ssePayloads(text: string): string[] {
  const payloads: string[] = [];
  const parser = createParser({ onEvent: (event) => payloads.push(event.data) });
  parser.feed(text);
  return payloads;
}

/** The text of an artifact as the agent stored it: one part per appended chunk. */
const artifactText = (artifact: any): string => artifact.parts.map((part: any) => part.text).join('');

/** The answer of the agent to the last relayed call of `method`, as it arrived at the proxy. */
async function agentAnswer(proxy: RecordingProxy, method: string): Promise<Buffer> {
  const exchange = proxy.rpc(method).at(-1);
  expect(exchange, `no ${method} reached the agent`).toBeDefined();
  return exchange!.response;
}

describe('A2AClient 0.2.5 → facade → a2a-js 0.2.5 agent: relayed, not translated', () => {
  let agent: RunningSdkV025Agent;
  let proxy: RecordingProxy;
  let gateway: RunningGateway;
  let client: A2AClient;
  let agentCard: any;

  beforeAll(async () => {
    agent = await startSdkV025Agent({ token: UPSTREAM_TOKEN, slowChunkDelayMs: 40 });
    proxy = await startRecordingProxy(agent.url);
    gateway = await startRelayingFacadeGateway({ upstream: { url: proxy.url, auth: { token: UPSTREAM_TOKEN } }, bailian: { 'api-key': API_KEY } });
    agentCard = await (await rawFetch(`${agent.url}/.well-known/agent.json`, { headers: { authorization: `Bearer ${UPSTREAM_TOKEN}` } })).json();
    // Bailian sends the console-configured key on every call: so does this client.
    stubKeyedFetch(gateway.url);
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await gateway?.close();
    await proxy?.close();
    await agent?.close();
  });

  it("serves the agent's own card with the gateway's url and X-API-KEY scheme, nothing of the agent's access", async () => {
    const card: any = await client.getAgentCard();
    const { supportsAuthenticatedExtendedCard: _extended, ...rest } = agentCard;
    expect(card).toStrictEqual({
      ...rest,
      url: gateway.url,
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      security: [{ apiKey: [] }],
    });
    expect(card.name).toBe(V025_AGENT_NAME);
    expect(JSON.stringify(card)).not.toContain(agent.url);
    expect(JSON.stringify(card)).not.toContain(proxy.url);
    // The card stays open, like the translated facade's.
    expect((await rawFetch(`${gateway.url}/.well-known/agent.json`)).status).toBe(200);
  });

  it('message/send: the answer is the bytes the agent wrote; the client reads the upstream task', async () => {
    const body = rpcBody('send-1', 'message/send', { message: userMessage({ text: 'hello relay' }) });
    const response = await rawFetch(gateway.url, { method: 'POST', headers: withKey, body });
    const received = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    expect(received.equals(await agentAnswer(proxy, 'message/send'))).toBe(true);
    expect(JSON.parse(proxy.rpc('message/send').at(-1)!.body)).toStrictEqual(JSON.parse(body));

    const sent: any = await client.sendMessage(sdkParams('hello client'));
    expect(sent.error).toBeUndefined();
    const task = sent.result;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    // The agent's own artifact and ids: no facade text artifact, no profile mapping.
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]).toMatchObject({ artifactId: `${task.id}-reply`, name: 'reply.txt' });
    expect(task.artifacts[0].parts).toStrictEqual(v025Reply('hello client', 1).chunks.map((text) => ({ kind: 'text', text })));
    expect((await agent.stored(task.id, 'completed')).contextId).toBe(task.contextId);
  });

  it('message/stream at /stream: every SSE data payload is the one the agent wrote, in order', async () => {
    const body = rpcBody('stream-1', 'message/stream', { message: userMessage({ text: 'stream relay' }) });
    const response = await rawFetch(`${gateway.url}/stream`, { method: 'POST', headers: { ...withKey, accept: 'text/event-stream' }, body });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const received = Buffer.from(await response.arrayBuffer());
    const wrote = await agentAnswer(proxy, 'message/stream');
    expect(ssePayloads(received.toString('utf8'))).toStrictEqual(ssePayloads(wrote.toString('utf8')));
    expect(received.equals(wrote)).toBe(true);
    const results = ssePayloads(received.toString('utf8')).map((data) => JSON.parse(data));
    expect(results.every((frame) => frame.id === 'stream-1')).toBe(true);
    expect(results[0].result.kind).toBe('task');
    expect(results.at(-1).result).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('sendMessageStream, then tasks/get and a follow-up by contextId, all answered by the agent', async () => {
    const events: any[] = await collect(client.sendMessageStream(sdkParams('first turn')));
    const task = events[0];
    expect(task.kind).toBe('task');
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', taskId: task.id, final: true, status: { state: 'completed' } });
    const replyChunks = events.filter((event) => event.kind === 'artifact-update').map((event) => event.artifact.parts[0].text);
    expect(replyChunks.join('')).toBe(v025Reply('first turn', 1).full);

    const got: any = await client.getTask({ id: task.id });
    expect(got.error).toBeUndefined();
    expect(got.result).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId, status: { state: 'completed' } });
    expect(Buffer.from(JSON.stringify(got)).equals(await agentAnswer(proxy, 'tasks/get'))).toBe(true);

    const second: any = await client.sendMessage(sdkParams('second turn', { contextId: task.contextId }));
    expect(artifactText(second.result.artifacts[0])).toBe(v025Reply('second turn', 2).full);
  });

  it("tasks/cancel is the agent's: its canceled state as the agent wrote it", async () => {
    const stream = client.sendMessageStream(sdkParams('slow: cancel me'));
    const head: any = (await stream.next()).value;
    const canceled: any = await client.cancelTask({ id: head.id });
    expect(canceled.result).toMatchObject({ kind: 'task', id: head.id, status: { state: 'canceled' } });
    const rest: any[] = await collect(stream);
    expect(rest.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } });
  });

  it("the caller's key and credentials never reach the agent; the gateway's upstream token does", async () => {
    const before = proxy.exchanges.length;
    const body = rpcBody('hdr-1', 'message/send', { message: userMessage({ text: 'headers' }) });
    await (
      await rawFetch(gateway.url, { method: 'POST', headers: { ...withKey, authorization: 'Bearer caller-token', cookie: 'session=1' }, body })
    ).text();
    const calls = proxy.exchanges.filter((exchange) => exchange.rpcMethod);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers['x-api-key']).toBeUndefined();
      expect(call.headers.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
      expect(call.headers.cookie).toBeUndefined();
    }
    expect(proxy.exchanges.length).toBeGreaterThan(before);
  });

  it('without the right key: 401 with a JSON-RPC error naming X-API-KEY, and nothing reaches the agent', async () => {
    const before = proxy.exchanges.length;
    for (const headers of [{}, { 'X-API-KEY': 'wrong' }, { authorization: `Bearer ${API_KEY}` }] as Record<string, string>[]) {
      for (const [path, method] of [
        ['/', 'message/send'],
        ['/stream', 'message/stream'],
        ['/', 'tasks/get'],
      ]) {
        const response = await rawFetch(`${gateway.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: rpcBody('x', method!, method === 'tasks/get' ? { id: 'any' } : { message: userMessage() }),
        });
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({
          id: null,
          error: { code: -32000, message: 'Unauthorized: a valid API key is required in the X-API-KEY header' },
        });
      }
    }
    expect(proxy.exchanges.length).toBe(before);
  });

  it('push config calls stay refused while the gateway has push off', async () => {
    const before = proxy.exchanges.length;
    const response = await rawFetch(gateway.url, {
      method: 'POST',
      headers: withKey,
      body: rpcBody('p-1', 'tasks/pushNotificationConfig/get', { id: 'any' }),
    });
    expect(((await response.json()) as any).error.code).toBe(-32003);
    expect(proxy.exchanges.length).toBe(before);
  });
});

describe('relay card without a key, with operator overrides', () => {
  it('no security, the operator identity and skills, signatures and other interfaces gone', async () => {
    const agent = await startSdkV025Agent();
    const gateway = await startRelayingFacadeGateway({
      upstream: { url: agent.url },
      'public-url': 'https://gw.example.com',
      bailian: { card: { name: 'Relay', skills: [{ id: 'chat', name: 'Chat', description: 'Talk', tags: ['chat'] }] } },
    });
    try {
      const card: any = await (await rawFetch(`${gateway.url}/.well-known/agent.json`)).json();
      expect(card).toMatchObject({ name: 'Relay', url: 'https://gw.example.com', security: [], version: '0.2.5-test' });
      expect(card.skills).toEqual([{ id: 'chat', name: 'Chat', description: 'Talk', tags: ['chat'] }]);
      expect(card.securitySchemes).toBeUndefined();
      expect(card.supportsAuthenticatedExtendedCard).toBeUndefined();
      // No key: calls pass without one.
      const sent = await rawFetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: rpcBody('n-1', 'message/send', { message: userMessage({ text: 'open' }) }),
      });
      expect(artifactText(((await sent.json()) as any).result.artifacts[0])).toBe(v025Reply('open', 1).full);
    } finally {
      await gateway.close();
      await agent.close();
    }
  });
});

describe('an agent that is down when the gateway starts', () => {
  it('is detected on the first call and relayed from then on', async () => {
    const proxy = await startRecordingProxy();
    const gateway = await startRelayingFacadeGateway({ upstream: { url: proxy.url } });
    const agent = await startSdkV025Agent();
    try {
      const down = await rawFetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: rpcBody('d-1', 'message/send', { message: userMessage() }),
      });
      expect(((await down.json()) as any).error.code).toBe(-32603);

      proxy.target = agent.url;
      const body = rpcBody('d-2', 'message/send', { message: userMessage({ text: 'now up' }) });
      const response = await rawFetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const received = Buffer.from(await response.arrayBuffer());
      expect(received.equals(await agentAnswer(proxy, 'message/send'))).toBe(true);
      expect(JSON.parse(received.toString('utf8')).result.artifacts[0].artifactId).toMatch(/-reply$/);
    } finally {
      await gateway.close();
      await agent.close();
      await proxy.close();
    }
  });
});

describe("0.3's agent/getAuthenticatedExtendedCard through the relay", () => {
  it('is the agent’s extended card rewritten like the card; an agent error comes back as it is', async () => {
    let fail = false;
    const fake = await startFakeV025({
      cardPath: '/.well-known/agent-card.json',
      card: { protocolVersion: '0.3.0' },
      rpc: {
        'agent/getAuthenticatedExtendedCard': (call, res) => {
          if (fail) return rpcError(call, res, { code: -32007, message: 'Extended card not configured' });
          rpcResult(call, res, {
            protocolVersion: '0.3.0',
            name: 'fake-extended',
            description: 'more skills',
            url: `${fake.url}/rpc`,
            version: '1',
            capabilities: { streaming: true },
            securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
            security: [{ bearer: [] }],
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [{ id: 'secret', name: 'Secret', description: 'Only for the authenticated', tags: ['x'] }],
            signatures: [{ protected: 'e30', signature: 'c2ln' }],
          });
        },
      },
    });
    const gateway = await startRelayingFacadeGateway({ upstream: { url: fake.url }, bailian: { 'api-key': API_KEY } });
    try {
      const call = async () => {
        const response = await rawFetch(gateway.url, {
          method: 'POST',
          headers: withKey,
          body: rpcBody('x-1', 'agent/getAuthenticatedExtendedCard', undefined),
        });
        return (await response.json()) as any;
      };
      const answer = await call();
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: 'x-1' });
      expect(answer.result).toMatchObject({ name: 'fake-extended', url: gateway.url, security: [{ apiKey: [] }], skills: [{ id: 'secret' }] });
      expect(answer.result.signatures).toBeUndefined();
      expect(JSON.stringify(answer)).not.toContain(fake.url);
      expect(fake.rpcCalls('agent/getAuthenticatedExtendedCard')).toHaveLength(1);

      fail = true;
      expect(await call()).toStrictEqual({ jsonrpc: '2.0', id: 'x-1', error: { code: -32007, message: 'Extended card not configured' } });
    } finally {
      await gateway.close();
      await fake.close();
    }
  });
});
