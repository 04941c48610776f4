/**
 * `agent/getAuthenticatedExtendedCard` through the facade that relays a 0.2.5/0.3 agent as it is (passthrough.ts).
 * The relay asks the agent with the gateway's own upstream credentials, so the card it gets is the one the agent
 * keeps for authenticated callers. With gateway `auth` on and no `bailian.api-key`, every facade caller is
 * anonymous: the method answers -32007 without calling the agent, as the translating facade answers it
 * (docs/signing-and-extensions.md, The extended card). Before, the relay handed any anonymous caller the agent's
 * extended card, skills for the authenticated included. With a facade key, or with no credentials anywhere, it is
 * served as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, startRelayingFacadeGateway } from '../../support/facade.js';
import { rpcResult, startFakeV025, type FakeV025 } from '../../support/fake-v025.js';

const METHOD = 'agent/getAuthenticatedExtendedCard';

let agent: FakeV025;

beforeAll(async () => {
  agent = await startFakeV025({
    cardPath: '/.well-known/agent-card.json',
    card: { protocolVersion: '0.3.0' },
    rpc: {
      [METHOD]: (call, res) =>
        rpcResult(call, res, {
          protocolVersion: '0.3.0',
          name: 'extended',
          description: 'for the authenticated',
          url: `${agent.url}/rpc`,
          version: '1',
          capabilities: {},
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [{ id: 'internal-admin', name: 'Admin', description: 'Only for the authenticated', tags: ['x'] }],
        }),
    },
  });
});
afterAll(async () => {
  await agent?.close();
});

async function extendedCard(gateway: RunningGateway, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'x-1', method: METHOD }),
    signal: AbortSignal.timeout(5_000),
  });
  return response.json();
}

describe.each<{ name: string; config: Record<string, unknown>; headers: Record<string, string>; served: boolean }>([
  {
    name: 'gateway auth on, no facade key: -32007, the agent not asked',
    config: { auth: { token: 'attack-extended-gateway-token-4f1e' } },
    headers: {},
    served: false,
  },
  {
    name: 'gateway auth on and a facade key: served to the key',
    config: { auth: { token: 'attack-extended-gateway-token-4f1e' }, bailian: { 'api-key': API_KEY } },
    headers: { 'x-api-key': API_KEY },
    served: true,
  },
  { name: 'no credentials anywhere: served', config: {}, headers: {}, served: true },
])('$name', ({ config, headers, served }) => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startRelayingFacadeGateway({ ...config, upstream: { url: agent.url, auth: { token: 'attack-extended-upstream-token' } } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers as the translating facade would', async () => {
    const asked = agent.rpcCalls(METHOD).length;
    const answer = await extendedCard(gateway, headers);
    if (served) {
      expect(answer.result).toMatchObject({ name: 'extended', url: gateway.url, skills: [{ id: 'internal-admin' }] });
      expect(agent.rpcCalls(METHOD)).toHaveLength(asked + 1);
    } else {
      expect(answer).toStrictEqual({ jsonrpc: '2.0', id: 'x-1', error: { code: -32007, message: expect.any(String) } });
      expect(JSON.stringify(answer)).not.toContain('internal-admin');
      expect(agent.rpcCalls(METHOD)).toHaveLength(asked);
    }
  });
});
