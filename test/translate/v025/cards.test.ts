import { describe, expect, it } from 'vitest';
import { AgentCard } from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import { V025AgentCard } from '../../../src/protocol/v025/index.js';
import { cardFromV025, cardToV025 } from '../../../src/translate/index.js';

const profile = loadMappingProfile('bailian');
const MODES = ['text/plain', 'application/json', 'image/png'];

/** iac-code's public card (as captured from the real server), trimmed to two skills, with auth and a signature. */
const iacCodeCard: AgentCard = {
  name: 'iac-code',
  description: 'AI-powered Infrastructure as Code assistant for Alibaba Cloud ROS and Terraform workflows.',
  supportedInterfaces: [
    { url: 'http://127.0.0.1:41242/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://127.0.0.1:41242', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  provider: { organization: 'iac-code' },
  version: '0.13.1',
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extendedAgentCard: true,
    extensions: [{ uri: 'urn:iac-code:a2a:artifact-metadata:v1', description: 'metadata' }],
  },
  securitySchemes: { bearerAuth: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
  securityRequirements: [{ schemes: { bearerAuth: { list: [''] } } }],
  defaultInputModes: MODES,
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'iac_generation',
      name: 'IaC Generation',
      description: 'Generate Alibaba Cloud ROS and Terraform templates from natural language.',
      tags: ['iac', 'ros', 'terraform', 'alibaba-cloud'],
      examples: ['Create a VPC with two vSwitches in cn-hangzhou.'],
      inputModes: MODES,
      outputModes: ['text/plain'],
    },
    { id: 'untagged', name: 'Untagged', description: '', tags: [] },
  ],
  signatures: [{ protected: 'eyJ', signature: 'sig', header: {} }],
};

describe('cardToV025: the facade card Bailian reads', () => {
  const card = cardToV025(iacCodeCard, { url: 'https://gw.example.com/bailian', profile, apiKeyHeader: 'X-API-KEY' });

  it('has every field Bailian requires and validates as a 0.2.5 card', () => {
    expect(V025AgentCard.safeParse(card).success).toBe(true);
    expect(card).toMatchObject({
      name: 'iac-code',
      description: iacCodeCard.description,
      url: 'https://gw.example.com/bailian',
      version: '0.13.1',
      protocolVersion: '0.2.5',
      capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false, extensions: [] },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
  });

  it('advertises the facade API key (never the upstream schemes), and none without a key', () => {
    expect(card.securitySchemes).toStrictEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } });
    expect(card.security).toStrictEqual([{ apiKey: [] }]);
    const open = cardToV025(iacCodeCard, { url: 'https://gw', profile });
    expect(open.securitySchemes).toBeUndefined();
    expect(open.security).toStrictEqual([]);
  });

  it('gives every skill id/name/description and a non-empty tag list, and drops modes', () => {
    expect(card.skills).toStrictEqual([
      {
        id: 'iac_generation',
        name: 'IaC Generation',
        description: 'Generate Alibaba Cloud ROS and Terraform templates from natural language.',
        tags: ['iac', 'ros', 'terraform', 'alibaba-cloud'],
        examples: ['Create a VPC with two vSwitches in cn-hangzhou.'],
      },
      { id: 'untagged', name: 'Untagged', description: 'Untagged', tags: ['general'] },
    ]);
  });

  it('drops signatures and a provider without url (0.2.5 requires it)', () => {
    expect(card).not.toHaveProperty('signatures');
    expect(card).not.toHaveProperty('provider');
  });

  it('applies operator overrides and extensions, and invents a skill when there is none', () => {
    const custom = cardToV025(
      { ...iacCodeCard, skills: [] },
      {
        url: 'https://gw',
        profile,
        overrides: { name: '云助手', version: '2.0.0' },
        extensions: [{ uri: 'https://bailian.example/protocol' }],
        pushNotifications: true,
      },
    );
    expect(custom.name).toBe('云助手');
    expect(custom.version).toBe('2.0.0');
    expect(custom.capabilities).toStrictEqual({
      streaming: true,
      pushNotifications: true,
      stateTransitionHistory: false,
      extensions: [{ uri: 'https://bailian.example/protocol' }],
    });
    expect(custom.skills).toStrictEqual([{ id: 'default', name: '云助手', description: iacCodeCard.description, tags: ['general'] }]);
    const skills = [{ id: 's', name: 'S', description: 'd', tags: ['t'], examples: ['e'] }];
    expect(cardToV025(iacCodeCard, { url: 'https://gw', profile, overrides: { skills } }).skills).toStrictEqual(skills);
  });
});

describe('cardFromV025', () => {
  const card025: V025AgentCard = {
    protocolVersion: '0.2.5',
    name: 'Gateway Agent',
    description: 'd',
    version: '1.0.0',
    url: 'https://gw.example.com/a2a',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: 'https://gw.example.com/a2a', transport: 'JSONRPC' },
      { url: 'https://gw.example.com/rest', transport: 'HTTP+JSON' },
    ],
    provider: { organization: 'Org', url: 'https://org' },
    capabilities: {
      streaming: true,
      pushNotifications: false,
      stateTransitionHistory: true,
      extensions: [{ uri: 'urn:x', required: true }],
    },
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      key: { type: 'apiKey', in: 'header', name: 'X-Key', description: 'k' },
      oauth: {
        type: 'oauth2',
        flows: {
          clientCredentials: { tokenUrl: 'https://t', scopes: { a: 'A' } },
          authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: {} },
        },
      },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://o' },
      mtls: { type: 'mutualTLS' },
    },
    security: [{ bearer: [] }, { oauth: ['a'] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'chat', name: 'Chat', description: 'c', tags: ['chat'] }],
    supportsAuthenticatedExtendedCard: true,
    signatures: [{ protected: 'x', signature: 'y' }],
  };
  const card = cardFromV025(card025);

  it('is a valid 1.0 card with interfaces from url/preferredTransport/additionalInterfaces', () => {
    expect(AgentCard.safeParse(card).success).toBe(true);
    expect(card.supportedInterfaces).toStrictEqual([
      { url: 'https://gw.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.2.5' },
      { url: 'https://gw.example.com/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.2.5' },
    ]);
  });

  it('moves supportsAuthenticatedExtendedCard, drops stateTransitionHistory and signatures', () => {
    expect(card.capabilities).toStrictEqual({
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      extensions: [{ uri: 'urn:x', required: true }],
    });
    expect(card).not.toHaveProperty('signatures');
    expect(card).not.toHaveProperty('stateTransitionHistory');
  });

  it('converts security schemes to oneof keys and security to securityRequirements', () => {
    expect(card.securitySchemes).toStrictEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: 'JWT' } },
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key', description: 'k' } },
      oauth: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: {} } } } },
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://o' } },
      mtls: { mtlsSecurityScheme: {} },
    });
    expect(card.securityRequirements).toStrictEqual([{ schemes: { bearer: { list: [] } } }, { schemes: { oauth: { list: ['a'] } } }]);
  });

  it('defaults the transport to JSONRPC when the card names none', () => {
    const { preferredTransport: _, additionalInterfaces: __, ...plain } = card025;
    expect(cardFromV025(plain).supportedInterfaces).toStrictEqual([
      { url: 'https://gw.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.2.5' },
    ]);
  });
});
