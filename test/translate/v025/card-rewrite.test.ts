import { describe, expect, it } from 'vitest';
import { V025AgentCard } from '../../../src/protocol/v025/index.js';
import { rewriteV025Card } from '../../../src/translate/index.js';

/** A 0.3 agent's card with everything that names the agent or its access. */
const agentCard: V025AgentCard = {
  protocolVersion: '0.3.0',
  name: 'weather-agent',
  description: 'Forecasts',
  url: 'http://10.0.0.5:9000/a2a/jsonrpc',
  preferredTransport: 'GRPC',
  additionalInterfaces: [
    { url: 'http://10.0.0.5:9000/a2a/jsonrpc', transport: 'JSONRPC' },
    { url: 'http://10.0.0.5:9000/a2a/rest', transport: 'HTTP+JSON' },
  ],
  provider: { organization: 'Acme', url: 'https://acme.example.com' },
  iconUrl: 'https://acme.example.com/icon.png',
  version: '2.1.0',
  capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: 'urn:acme:ext', required: true }] },
  securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  security: [{ bearer: [] }],
  defaultInputModes: ['text/plain', 'image/png'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'forecast', name: 'Forecast', description: 'Tomorrow', tags: ['weather'], security: [{ bearer: [] }], inputModes: ['text/plain'] }],
  supportsAuthenticatedExtendedCard: true,
  signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }],
};

const GATEWAY = 'https://gw.example.com/bailian';

describe('rewriteV025Card: the agent’s own card served by the relaying facade', () => {
  it('keeps what describes the agent, replaces what describes reaching and trusting it', () => {
    const card = rewriteV025Card(agentCard, { url: GATEWAY, apiKeyHeader: 'X-API-KEY', defaultSkillTag: 'general' });
    expect(V025AgentCard.safeParse(card).success).toBe(true);
    expect(card).toStrictEqual({
      protocolVersion: '0.3.0',
      name: 'weather-agent',
      description: 'Forecasts',
      url: GATEWAY,
      preferredTransport: 'JSONRPC',
      provider: { organization: 'Acme', url: 'https://acme.example.com' },
      iconUrl: 'https://acme.example.com/icon.png',
      version: '2.1.0',
      capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: 'urn:acme:ext', required: true }] },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      security: [{ apiKey: [] }],
      defaultInputModes: ['text/plain', 'image/png'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'forecast', name: 'Forecast', description: 'Tomorrow', tags: ['weather'], inputModes: ['text/plain'] }],
    });
    expect(JSON.stringify(card)).not.toContain('10.0.0.5');
    // The input is left alone.
    expect(agentCard.url).toBe('http://10.0.0.5:9000/a2a/jsonrpc');
  });

  const cases: Array<{ name: string; options: Partial<Parameters<typeof rewriteV025Card>[1]>; expected: Record<string, unknown> }> = [
    { name: 'no key: no scheme, an empty requirement list', options: {}, expected: { security: [] } },
    {
      name: 'operator identity and skills win (blank tags get the default tag)',
      options: { overrides: { name: 'Gateway', version: '9', skills: [{ id: 's', name: 'S', description: 'D', tags: [' '] }] } },
      expected: { name: 'Gateway', description: 'Forecasts', version: '9', skills: [{ id: 's', name: 'S', description: 'D', tags: ['general'] }] },
    },
    {
      name: 'push off at the gateway hides the capability',
      options: { pushNotifications: false },
      expected: { capabilities: { ...agentCard.capabilities, pushNotifications: false } },
    },
    { name: 'push on keeps the agent’s own answer', options: { pushNotifications: true }, expected: { capabilities: agentCard.capabilities } },
  ];
  for (const { name, options, expected } of cases) {
    it(name, () => {
      const card = rewriteV025Card(agentCard, { url: GATEWAY, defaultSkillTag: 'general', ...options });
      expect(card).toMatchObject(expected);
      if (!options.apiKeyHeader) expect(card.securitySchemes).toBeUndefined();
    });
  }

  it('a card without preferredTransport (the a2a-js 0.2.5 SDK) gets none', () => {
    const { preferredTransport: _, ...bare } = agentCard;
    expect(rewriteV025Card(bare, { url: GATEWAY, defaultSkillTag: 'general' })).not.toHaveProperty('preferredTransport');
  });
});
