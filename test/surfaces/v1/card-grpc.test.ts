/** The GRPC interface of the served 1.0 card: present only with the binding on, at the address callers can use. */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { servedCard } from '../../../src/surfaces/v1/card.js';
import { upstreamCard } from '../support.js';

const BASE = 'https://agents.example.com';
const grpcEntries = (config: Record<string, unknown>) =>
  servedCard(upstreamCard(), BASE, defaultConfig(config)).supportedInterfaces.filter((entry) => entry.protocolBinding === 'GRPC');

describe('the GRPC interface on the served card', () => {
  it('is absent while grpc.port is unset', () => {
    expect(grpcEntries({})).toEqual([]);
  });

  it('comes after JSON-RPC and HTTP+JSON, as host:port of the binding', () => {
    const card = servedCard(upstreamCard(), BASE, defaultConfig({ grpc: { port: 50051, host: '10.1.2.3' } }));
    expect(card.supportedInterfaces.map((entry) => entry.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    expect(card.supportedInterfaces[2]).toEqual({ url: '10.1.2.3:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' });
    // The 0.3 fields (opt-in, card-legacy-fields) list it too.
    const legacy = servedCard(upstreamCard(), BASE, defaultConfig({ grpc: { port: 50051, host: '10.1.2.3' } }), { legacyFields: true });
    expect((legacy as unknown as { additionalInterfaces: unknown[] }).additionalInterfaces).toContainEqual({
      url: '10.1.2.3:50051',
      transport: 'GRPC',
    });
  });

  it('a wildcard bind is advertised with the host callers reach the gateway at; IPv6 hosts get brackets', () => {
    expect(grpcEntries({ host: '0.0.0.0', grpc: { port: 50051 } })[0]?.url).toBe('agents.example.com:50051');
    expect(grpcEntries({ grpc: { port: 50051, host: '::' } })[0]?.url).toBe('agents.example.com:50051');
    expect(grpcEntries({ grpc: { port: 50051, host: '::1' } })[0]?.url).toBe('[::1]:50051');
  });

  it('grpc.public-address wins', () => {
    expect(grpcEntries({ grpc: { port: 50051, 'public-address': 'grpc.example.com:443' } })[0]?.url).toBe('grpc.example.com:443');
  });
});
