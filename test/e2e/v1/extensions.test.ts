/**
 * A2A extensions through the gateway, with a real a2a-js 1.x agent behind it that declares two
 * extensions (one `required`) and activates whatever it is asked for: the caller's URIs reach the
 * agent in its own spelling, its activated ones come back in the caller's header on both surfaces
 * (1.0: JSON-RPC and HTTP+JSON; 0.2.5 facade), blocking and streaming; a message send that leaves
 * out the required one is refused with -32008 before the agent is called.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceParameters, withA2AExtensions, withA2AVersion } from 'a2a-sdk-1/client';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { rpcResult, startFakeV025, type FakeV025 } from '../../support/fake-v025.js';
import { TRANSPORTS, connect, rejectionOf, sendRequest, wireCode } from '../../support/sdk-v1-client.js';

const TRACING = 'urn:example:tracing:v1';
const REQUIRED = 'urn:example:must-have:v1';
const GATEWAY_OWN = 'urn:example:gateway-audit:v1';
const BOTH = `${REQUIRED}, ${TRACING}`;

let agent: RunningSdkV1Agent;
let gateway: TestGateway;

beforeAll(async () => {
  agent = await startSdkV1Agent({
    extensions: [
      { uri: TRACING, description: 'traces' },
      { uri: REQUIRED, required: true },
    ],
  });
  gateway = await startTestGateway({
    upstream: { url: agent.url },
    extensions: [{ uri: GATEWAY_OWN, description: 'the gateway audits calls', params: { level: 2 } }],
  });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const V1_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const v1Message = (text: string) => ({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });

function jsonRpc(method: string, params: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { ...V1_HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

function rest(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { ...V1_HEADERS, ...headers }, body: JSON.stringify(body) });
}

function facade(method: string, text: string, headers: Record<string, string> = {}): Promise<Response> {
  const message = { kind: 'message', role: 'user', messageId: `f-${Math.random()}`, parts: [{ kind: 'text', text }] };
  return fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'f', method, params: { message } }),
  });
}

const echoed = (response: Response, header: string): string[] =>
  (response.headers.get(header) ?? '')
    .split(',')
    .map((uri) => uri.trim())
    .filter(Boolean)
    .sort();

describe('the cards', () => {
  it('1.0: the upstream extensions with their required flag, then the gateway own one', async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as any;
    expect(card.capabilities.extensions.map((extension: any) => [extension.uri, extension.required === true])).toEqual([
      [TRACING, false],
      [REQUIRED, true],
      [GATEWAY_OWN, false],
    ]);
    expect(card.capabilities.extensions[2]).toEqual({ uri: GATEWAY_OWN, description: 'the gateway audits calls', params: { level: 2 } });
  });

  it('0.2.5 facade: the same URIs, none of them required of Bailian', async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent.json`)).json()) as any;
    const uris = card.capabilities.extensions.map((extension: any) => extension.uri);
    expect(uris).toEqual(expect.arrayContaining([TRACING, REQUIRED, GATEWAY_OWN]));
    expect(card.capabilities.extensions.some((extension: any) => extension.required)).toBe(false);
  });
});

describe('activated extensions are echoed', () => {
  it('1.0 JSON-RPC SendMessage (blocking)', async () => {
    const seen = agent.extensionHeaders.length;
    const response = await jsonRpc('SendMessage', v1Message('hi'), { 'a2a-extensions': BOTH });
    const body = (await response.json()) as any;
    expect(body.result.task ?? body.result.message).toBeDefined();
    expect(echoed(response, 'a2a-extensions')).toEqual([TRACING, REQUIRED].sort());
    expect(agent.extensionHeaders.slice(seen)).toEqual([{ 'a2a-extensions': BOTH }]);
  });

  it('1.0 JSON-RPC SendStreamingMessage (SSE)', async () => {
    const response = await jsonRpc('SendStreamingMessage', v1Message('hi'), { 'a2a-extensions': TRACING + ',' + REQUIRED });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(echoed(response, 'a2a-extensions')).toEqual([TRACING, REQUIRED].sort());
    expect(await response.text()).toContain('TASK_STATE_COMPLETED');
  });

  it('1.0 HTTP+JSON message:send and message:stream', async () => {
    const blocking = await rest('/message:send', v1Message('hi'), { 'a2a-extensions': BOTH });
    expect(blocking.status).toBe(200);
    expect(echoed(blocking, 'a2a-extensions')).toEqual([TRACING, REQUIRED].sort());
    await blocking.text();
    const streaming = await rest('/message:stream', v1Message('hi'), { 'a2a-extensions': REQUIRED });
    expect(echoed(streaming, 'a2a-extensions')).toEqual([REQUIRED]);
    expect(await streaming.text()).toContain('TASK_STATE_COMPLETED');
  });

  it('only what the agent activated: an unknown URI is forwarded but not echoed', async () => {
    const response = await jsonRpc('SendMessage', v1Message('hi'), { 'a2a-extensions': `${REQUIRED}, urn:example:unknown` });
    await response.text();
    expect(echoed(response, 'a2a-extensions')).toEqual([REQUIRED]);
    expect(agent.extensionHeaders.at(-1)).toEqual({ 'a2a-extensions': `${REQUIRED}, urn:example:unknown` });
  });

  it('0.2.5 facade message/send and message/stream: X-A2A-Extensions in, 1.0 spelling upstream, X-A2A-Extensions back', async () => {
    const seen = agent.extensionHeaders.length;
    const blocking = await facade('message/send', 'hi', { 'x-a2a-extensions': BOTH });
    expect(((await blocking.json()) as any).result).toBeDefined();
    expect(echoed(blocking, 'x-a2a-extensions')).toEqual([TRACING, REQUIRED].sort());
    expect(blocking.headers.get('a2a-extensions')).toBeNull();
    const streaming = await facade('message/stream', 'hi', { 'x-a2a-extensions': BOTH });
    expect(echoed(streaming, 'x-a2a-extensions')).toEqual([TRACING, REQUIRED].sort());
    expect(await streaming.text()).toContain('"final":true');
    expect(agent.extensionHeaders.slice(seen)).toEqual([{ 'a2a-extensions': BOTH }, { 'a2a-extensions': BOTH }]);
  });

  it.each(TRANSPORTS)('the official 1.x client sends its extensions through the gateway over %s', async (transport) => {
    const { client } = await connect(gateway.url, transport);
    const seen = agent.extensionHeaders.length;
    const options = { serviceParameters: ServiceParameters.create(withA2AVersion('1.0'), withA2AExtensions(REQUIRED)) };
    const result = await client.sendMessage(sendRequest('with extensions'), options);
    expect(result).toBeDefined();
    expect(agent.extensionHeaders.slice(seen)).toEqual([{ 'a2a-extensions': REQUIRED }]);
  });
});

describe('a required extension left out', () => {
  it('JSON-RPC: -32008 naming it, and the agent is never called', async () => {
    const seen = agent.extensionHeaders.length;
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const body = (await (await jsonRpc(method, v1Message('hi'), { 'a2a-extensions': TRACING })).json()) as any;
      expect(body.error.code).toBe(-32008);
      expect(body.error.message).toContain(REQUIRED);
    }
    expect(agent.extensionHeaders.length).toBe(seen);
  });

  it('HTTP+JSON: 400 with reason EXTENSION_SUPPORT_REQUIRED', async () => {
    const response = await rest('/message:send', v1Message('hi'));
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'EXTENSION_SUPPORT_REQUIRED' })]));
  });

  it.each(TRANSPORTS)('the official client sees ExtensionSupportRequired over %s', async (transport) => {
    const { client } = await connect(gateway.url, transport);
    const failure = await rejectionOf(client.sendMessage(sendRequest('without')));
    expect(failure).toMatchObject({ reason: 'EXTENSION_SUPPORT_REQUIRED', code: wireCode(transport, -32008) });
  });

  it('other methods are not refused (GetTask of an unknown id is -32001, not -32008)', async () => {
    const body = (await (await jsonRpc('GetTask', { id: 'no-such-task' })).json()) as any;
    expect(body.error.code).toBe(-32001);
  });
});

describe('a 0.2.5 upstream', () => {
  let fake: FakeV025;
  let bridged: TestGateway;

  beforeAll(async () => {
    fake = await startFakeV025({
      card: { capabilities: { streaming: true, extensions: [{ uri: TRACING }] } },
      rpc: {
        'message/send': (call, res) => {
          res.setHeader('x-a2a-extensions', TRACING);
          rpcResult(call, res, { kind: 'message', role: 'agent', messageId: 'a-1', parts: [{ kind: 'text', text: 'ok' }] });
        },
      },
    });
    bridged = await startTestGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await bridged?.close();
    await fake?.close();
  });

  it('gets the URIs as X-A2A-Extensions, and the 1.0 caller gets its activated ones as A2A-Extensions', async () => {
    const response = await fetch(`${bridged.url}/`, {
      method: 'POST',
      headers: { ...V1_HEADERS, 'a2a-extensions': TRACING },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: v1Message('hi') }),
    });
    expect(((await response.json()) as any).result.message).toBeDefined();
    expect(response.headers.get('a2a-extensions')).toBe(TRACING);
    const call = fake.rpcCalls('message/send').at(-1);
    expect(call?.headers['x-a2a-extensions']).toBe(TRACING);
    expect(call?.headers['a2a-extensions']).toBeUndefined();
  });
});
