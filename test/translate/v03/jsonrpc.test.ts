/**
 * A2A 0.3's JSON-RPC edge: what 0.3 added to 0.2.5's wire is read by the 0.2.5 schemas, and the
 * card's interface fields (`url`, `preferredTransport`, `additionalInterfaces`) map both ways.
 */
import { describe, expect, it } from 'vitest';
import { V03_AGENT_CARD_PATH, V03_EXTENDED_CARD_METHOD } from '../../../src/protocol/v03/index.js';
import { V025_METHODS, V025AgentCard } from '../../../src/protocol/v025/index.js';
import { V03_CARD_INTERFACE_FIELDS, cardFromV025, interfacesFromV03CardFields, transportName, v03CardFields } from '../../../src/translate/index.js';

const card03 = {
  protocolVersion: '0.3.0',
  name: 'agent',
  description: 'an agent',
  url: 'http://a/rpc',
  version: '1',
  capabilities: {},
  securitySchemes: { tls: { type: 'mutualTLS', description: 'client certificate' } },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 's', description: 's', tags: ['t'], security: [{ tls: [] }] }],
  signatures: [{ protected: 'e30', signature: 'c2ln' }],
};

describe('0.3 JSON-RPC wire additions', () => {
  it('the 0.2.5 card schema reads mutualTLS, skill security and signatures; the translated card keeps none of the signatures', () => {
    const parsed = V025AgentCard.parse(card03);
    expect(parsed.skills[0]?.security).toEqual([{ tls: [] }]);
    expect(parsed.signatures).toHaveLength(1);
    const v1 = cardFromV025(parsed);
    expect(v1.securitySchemes).toEqual({ tls: { mtlsSecurityScheme: { description: 'client certificate' } } });
    expect(v1.skills[0]?.securityRequirements).toEqual([{ schemes: { tls: { list: [] } } }]);
    expect(v1).not.toHaveProperty('signatures');
  });

  it('the 0.2.5 methods include 0.3’s extended-card method; the card path is 0.3’s', () => {
    expect(V025_METHODS).toContain(V03_EXTENDED_CARD_METHOD);
    expect(V03_EXTENDED_CARD_METHOD).toBe('agent/getAuthenticatedExtendedCard');
    expect(V03_AGENT_CARD_PATH).toBe('/.well-known/agent-card.json');
  });
});

describe('the card interface fields', () => {
  const interfaces = [
    { url: 'http://g/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://g', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ] as const;

  it('written from 1.0 interfaces: exactly the fields V03_CARD_INTERFACE_FIELDS names', () => {
    const fields = v03CardFields(interfaces);
    expect(fields).toEqual({
      url: 'http://g/',
      preferredTransport: 'JSONRPC',
      protocolVersion: '1.0',
      additionalInterfaces: [{ url: 'http://g', transport: 'HTTP+JSON' }],
    });
    expect(Object.keys(fields).sort()).toEqual([...V03_CARD_INTERFACE_FIELDS].sort());
  });

  it('read back: `url` with its preferred transport first, then the additional interfaces', () => {
    expect(interfacesFromV03CardFields(v03CardFields(interfaces))).toEqual([
      { url: 'http://g/', transport: 'JSONRPC' },
      { url: 'http://g', transport: 'HTTP+JSON' },
    ]);
  });

  it('read tolerantly: JSONRPC when no transport is preferred, names upper-cased, entries without a url skipped', () => {
    const card = { url: 'http://a/', additionalInterfaces: [{ url: 'http://a/v1', transport: ' http+json ' }, { transport: 'GRPC' }, 'junk'] };
    expect(interfacesFromV03CardFields(card)).toEqual([
      { url: 'http://a/', transport: 'JSONRPC' },
      { url: 'http://a/v1', transport: 'HTTP+JSON' },
    ]);
    expect(interfacesFromV03CardFields({})).toEqual([]);
    expect(transportName(7)).toBe('');
  });
});
