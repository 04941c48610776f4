/**
 * GetExtendedAgentCard through the gateway: only to authenticated callers when gateway auth is on,
 * rewritten and signed like the public card, and not advertised when the upstream offers none. The
 * facade serves `agent/getAuthenticatedExtendedCard` only when the upstream offers one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAgentCardSignature } from 'a2a-sdk-1';
import { createSecretKey } from 'node:crypto';
import { startDemoGateway, startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { connectGrpc, wire } from '../grpc/grpc-client.js';

const TOKEN = 'gateway-token-for-extended-card-tests';
const SECRET = 'extended-card-signing-secret-0123456789';
const PUBLIC_URL = 'https://agents.example.com';

const rpc = (url: string, method: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: {} }),
  });

describe('with gateway auth and a signing key (demo agent, which offers an extended card)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({
      'public-url': PUBLIC_URL,
      auth: { token: TOKEN },
      signing: { keys: [{ kid: 'default', secret: SECRET }] },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('refuses an anonymous caller on both bindings', async () => {
    expect((await rpc(gateway.url, 'GetExtendedAgentCard')).status).toBe(401);
    expect((await fetch(`${gateway.url}/extendedAgentCard`, { headers: { 'a2a-version': '1.0' } })).status).toBe(401);
  });

  it('serves an authenticated caller the rewritten, signed extended card (JSON-RPC and HTTP+JSON agree)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const viaRpc = ((await (await rpc(gateway.url, 'GetExtendedAgentCard', auth)).json()) as any).result;
    const viaRest = await (await fetch(`${gateway.url}/extendedAgentCard`, { headers: { 'a2a-version': '1.0', ...auth } })).json();
    expect(viaRest).toEqual(viaRpc);
    expect(viaRpc.supportedInterfaces.map((entry: any) => entry.url)).toEqual([`${PUBLIC_URL}/`, PUBLIC_URL]);
    expect(viaRpc.securitySchemes).toBeDefined();
    expect(viaRpc.signatures).toHaveLength(1);
    const verify = verifyAgentCardSignature(async () => createSecretKey(Buffer.from(SECRET)));
    await expect(verify(viaRpc)).resolves.toBeUndefined();
    const publicCard = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`, { headers: auth })).json()) as any;
    expect(publicCard.capabilities.extendedAgentCard).toBe(true);
    expect(viaRpc.signatures).not.toEqual(publicCard.signatures);
  });

  it('the facade keeps it from Bailian while bailian.api-key is unset (its callers are anonymous)', async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent.json`)).json()) as any;
    expect(card.supportsAuthenticatedExtendedCard).not.toBe(true);
    const body = (await (await rpc(gateway.url, 'agent/getAuthenticatedExtendedCard')).json()) as any;
    expect(body.error.code).toBe(-32007);
  });
});

describe('the facade with its own key', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({ auth: { token: TOKEN }, bailian: { 'api-key': 'bailian-key-0123456789' } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('advertises and serves the extended card to a caller with the key', async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent.json`)).json()) as any;
    expect(card.supportsAuthenticatedExtendedCard).toBe(true);
    const body = (await (await rpc(gateway.url, 'agent/getAuthenticatedExtendedCard', { 'x-api-key': 'bailian-key-0123456789' })).json()) as any;
    expect(body.result.protocolVersion).toBe('0.2.5');
    expect(body.result.skills.length).toBeGreaterThan(card.skills.length);
  });
});

describe('an upstream without an extended card (the a2a-js test agent)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startSdkGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('does not advertise one; a caller who asks anyway gets the upstream answer (the a2a-js server: -32004)', async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as any;
    expect(card.capabilities.extendedAgentCard).not.toBe(true);
    const body = (await (await rpc(gateway.url, 'GetExtendedAgentCard')).json()) as any;
    expect(body.error.code).toBe(-32004);
    const facade = (await (await rpc(gateway.url, 'agent/getAuthenticatedExtendedCard')).json()) as any;
    expect(facade.error.code).toBe(-32007);
  });
});

describe('over gRPC, with a signing key (demo agent)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({ 'public-url': PUBLIC_URL, signing: { keys: [{ kid: 'default', secret: SECRET }] }, grpc: { port: 0 } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('GetExtendedAgentCard is the same rewritten card as over JSON-RPC, signed', async () => {
    const viaRpc = ((await (await rpc(gateway.url, 'GetExtendedAgentCard')).json()) as any).result;
    const client = await connectGrpc(gateway.url);
    const viaGrpc = (await client.transport.getExtendedAgentCard({ tenant: '' }, wire())) as any;
    expect(viaGrpc.signatures).toHaveLength(1);
    const verify = verifyAgentCardSignature(async () => createSecretKey(Buffer.from(SECRET)));
    await expect(verify(viaGrpc)).resolves.toBeUndefined();
    // The proto reader fills in the fields the JSON leaves out (an empty tenant): compare what names the endpoints.
    const endpoints = (card: any) => card.supportedInterfaces.map((entry: any) => `${entry.protocolBinding} ${entry.url}`);
    expect(endpoints(viaGrpc)).toEqual(endpoints(viaRpc));
  });
});
