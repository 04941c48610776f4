/**
 * An agent's card naming its JSON-RPC interface on another origin than upstream.url: the gateway called that
 * origin with upstream.auth's credentials (a Bearer token) and every caller's words, a host the operator never
 * named (whoever wrote the card, or altered it on a plain-http path, chose it). The card's path is now called at
 * upstream.url's origin, with one warning naming both origins; `upstream.card-origins` lets the card name one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { jsonRpcAgentCard, readJsonBody } from '../support/json-rpc-agent.js';

const UPSTREAM_TOKEN = 'upstream-secret-token-0123456789abcdef';
const CALLER_KEY = 'caller-key-0123456789abcdefghij';

/** A 1.0 agent answering every send with `done by <name>`; it records the Authorization and path of each call. */
function startAgent(name: string, host: string, card: () => unknown) {
  const calls: Array<{ path: string; authorization?: string }> = [];
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card()));
      return;
    }
    calls.push({ path: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    void readJsonBody(req).then((rpc: { id: unknown }) => {
      const message = { messageId: `${name}-reply`, role: 'ROLE_AGENT', parts: [{ text: `done by ${name}` }] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: { message } }));
    });
  });
  const url = new Promise<string>((resolve) => server.listen(0, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`)));
  return { calls, url, close: () => (server.closeAllConnections(), server.close()) };
}

const ABOUT = { name: 'a', description: 'd', skill: { id: 's', name: 's', description: 's' } };

/** Another origin than upstream.url's: 127.0.0.2 (Linux routes all of 127/8 to this machine). */
async function cardNamingElsewhere(cardOrigins?: (elsewhereUrl: string) => string[]) {
  const elsewhere = startAgent('elsewhere', '127.0.0.2', () => undefined);
  const elsewhereUrl = await elsewhere.url;
  const agent = startAgent('upstream', '127.0.0.1', () => jsonRpcAgentCard(`${elsewhereUrl}/rpc`, ABOUT));
  const gateway = await startTestGateway({
    upstream: { url: await agent.url, auth: { token: UPSTREAM_TOKEN }, ...(cardOrigins ? { 'card-origins': cardOrigins(elsewhereUrl) } : {}) },
    auth: { 'api-keys': [CALLER_KEY] },
  });
  return { agent, elsewhere, elsewhereUrl, gateway };
}

/** What an A2A 1.0 caller reads back from a send through the gateway. */
async function sendThrough(gateway: TestGateway): Promise<string> {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': CALLER_KEY },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'my private words' }] } },
    }),
  });
  const body = (await response.json()) as { result?: { message?: { parts: Array<{ text: string }> } } };
  return body.result?.message?.parts[0]?.text ?? JSON.stringify(body);
}

describe('a card naming another origin than upstream.url', () => {
  let setup: Awaited<ReturnType<typeof cardNamingElsewhere>>;
  beforeAll(async () => {
    setup = await cardNamingElsewhere();
  });
  afterAll(async () => {
    await setup?.gateway.close();
    setup?.agent.close();
    setup?.elsewhere.close();
  });

  it("is called at upstream.url's origin, the card's path kept: the credentials and words go nowhere else", async () => {
    expect(await sendThrough(setup.gateway)).toBe('done by upstream');
    expect(await sendThrough(setup.gateway)).toBe('done by upstream');
    expect(setup.elsewhere.calls).toEqual([]);
    expect(setup.agent.calls).toEqual([
      { path: '/rpc/', authorization: `Bearer ${UPSTREAM_TOKEN}` },
      { path: '/rpc/', authorization: `Bearer ${UPSTREAM_TOKEN}` },
    ]);
  });

  it('is told the operator once, naming both origins and not the credentials', async () => {
    const warnings = setup.gateway.log().filter((line) => /another origin than upstream\.url/.test(line.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ advertised: `${setup.elsewhereUrl}/rpc/`, used: `${await setup.agent.url}/rpc/` });
    expect(warnings[0]!.msg).toContain('upstream.card-origins');
    expect(JSON.stringify(warnings[0])).not.toContain(UPSTREAM_TOKEN);
  });
});

describe('a card naming an origin upstream.card-origins allows', () => {
  let setup: Awaited<ReturnType<typeof cardNamingElsewhere>>;
  beforeAll(async () => {
    setup = await cardNamingElsewhere((elsewhereUrl) => [`${elsewhereUrl}/`]);
  });
  afterAll(async () => {
    await setup?.gateway.close();
    setup?.agent.close();
    setup?.elsewhere.close();
  });

  it('is followed, without a warning', async () => {
    expect(await sendThrough(setup.gateway)).toBe('done by elsewhere');
    expect(setup.elsewhere.calls).toEqual([{ path: '/rpc/', authorization: `Bearer ${UPSTREAM_TOKEN}` }]);
    expect(setup.gateway.log().filter((line) => /another origin/.test(line.msg))).toEqual([]);
  });
});

describe('upstream.card-origins', () => {
  it('takes origins only: a path, query or credentials in one is refused', () => {
    expect(UpstreamConfig.parse({ 'card-origins': ['https://api.example.com', 'http://10.0.0.5:8080/'] })['card-origins']).toHaveLength(2);
    for (const bad of ['https://api.example.com/a2a', 'https://api.example.com/?x=1', 'https://u:p@api.example.com', 'ftp://api.example.com']) {
      expect(UpstreamConfig.safeParse({ 'card-origins': [bad] }).success, bad).toBe(false);
    }
  });
});
