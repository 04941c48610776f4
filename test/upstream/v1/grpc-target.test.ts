/** Choosing the binding of a 1.0 agent (JSON-RPC, HTTP+JSON, gRPC), and reading the gRPC address out of its card. */
import { describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { classifyV1Binding, detectUpstream } from '../../../src/upstream/detect.js';
import { cardAddressWarnings } from '../../../src/upstream/card-address.js';
import { grpcInterfaceOf } from '../../../src/upstream/v1/grpc-client.js';
import { grpcTarget } from '../../../src/upstream/v1/grpc-target.js';

const config = (overrides: Record<string, unknown> = {}) => UpstreamConfig.parse(overrides);
const card = (...bindings: string[]) => ({
  supportedInterfaces: bindings.map((protocolBinding) => ({ url: 'x', protocolBinding, protocolVersion: '1.0' })),
});

describe('classifyV1Binding', () => {
  it.each([
    [card('GRPC'), 'GRPC'],
    [card('grpc'), 'GRPC'],
    [card('HTTP+JSON', 'GRPC'), 'HTTP+JSON'],
    [card('GRPC', 'HTTP+JSON'), 'GRPC'],
    [card('HTTP+JSON'), 'HTTP+JSON'],
    [card('HTTP+JSON', 'JSONRPC'), 'JSONRPC'],
    [card('GRPC', 'JSONRPC'), 'JSONRPC'],
    [card('JSONRPC'), 'JSONRPC'],
    [card(), 'JSONRPC'],
    [{}, 'JSONRPC'],
    ['not a card', 'JSONRPC'],
  ])('auto: %j → %s', (value, expected) => {
    expect(classifyV1Binding(value, config())).toBe(expected);
  });

  it('upstream.protocol-binding decides when set', () => {
    expect(classifyV1Binding(card('JSONRPC'), config({ 'protocol-binding': 'GRPC' }))).toBe('GRPC');
    expect(classifyV1Binding(card('GRPC'), config({ 'protocol-binding': 'JSONRPC' }))).toBe('JSONRPC');
    expect(classifyV1Binding(card('JSONRPC'), config({ 'protocol-binding': 'HTTP+JSON' }))).toBe('HTTP+JSON');
  });

  it('with upstream.protocol 1.0 nothing is fetched: only protocol-binding decides', async () => {
    const unreachable = 'http://127.0.0.1:9';
    expect(await detectUpstream(unreachable, config({ protocol: '1.0', 'protocol-binding': 'GRPC' }))).toEqual({ protocol: '1.0', binding: 'GRPC' });
    expect(await detectUpstream(unreachable, config({ protocol: '1.0' }))).toEqual({ protocol: '1.0', binding: 'JSONRPC' });
    expect(await detectUpstream(unreachable, config({ protocol: '1.0', 'protocol-binding': 'HTTP+JSON' }))).toEqual({
      protocol: '1.0',
      binding: 'HTTP+JSON',
    });
  });
});

describe('grpcTarget', () => {
  const http = 'http://agent.internal:8080/';
  const https = 'https://agent.example.com/';
  it.each([
    ['agent.internal:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['AGENT.internal:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['agent.example.com:50051', https, { target: 'agent.example.com:50051', tls: true }],
    ['agent.internal', http, { target: 'agent.internal:443', tls: false }],
    ['0.0.0.0:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['[::]:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['grpc://agent.internal:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['grpcs://agent.internal:443', http, { target: 'agent.internal:443', tls: true }],
    ['grpcs://agent.internal:80', http, { target: 'agent.internal:80', tls: true }],
    ['https://agent.example.com', https, { target: 'agent.example.com:443', tls: true }],
    ['http://0.0.0.0:7000/', http, { target: 'agent.internal:7000', tls: false }],
    ['dns:///agent.internal:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['dns:agent.internal:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['[::1]:50051', 'http://[::1]:8080/', { target: '[::1]:50051', tls: false }],
    ['localhost:50051', 'http://localhost:8080/', { target: 'localhost:50051', tls: false }],
    ['unix:/run/agent.sock', 'http://127.0.0.1:8080/', { target: 'unix:/run/agent.sock', tls: false }],
  ])('%s (card at %s) → %j', (url, cardUrl, expected) => {
    expect(grpcTarget(url, cardUrl)).toEqual(expected);
  });

  it.each(['', '   ', 'ftp://agent:21', 'agent.internal:50051/extra', 'grpc://'])('%j is no target', (url) => {
    expect(grpcTarget(url, http)).toBeUndefined();
  });

  /** What the operator is told (card-address.ts's notice) for each address a card names. */
  function told(url: string, cardUrl: string, cardOrigins: string[] = []) {
    const warned: Array<{ advertised: string; used?: string; msg: string }> = [];
    const logger = { warn: (fields: { advertised: string; used?: string }, msg: string) => void warned.push({ ...fields, msg }) };
    const notice = cardAddressWarnings(logger, cardUrl, cardOrigins);
    return { target: grpcTarget(url, cardUrl, notice), warned };
  }

  it.each([
    ['127.0.0.1:50051', http, 'agent.internal:50051', /loopback address/],
    ['localhost:50051', https, 'agent.example.com:50051', /loopback address/],
    ['10.0.0.5:50051', http, 'agent.internal:50051', /another host than upstream\.url's/],
    ['grpc://169.254.169.254:80', http, 'agent.internal:80', /another host than upstream\.url's/],
    ['grpcs://elsewhere.example.com', https, 'agent.example.com:443', /another host than upstream\.url's/],
    ['dns://8.8.8.8/elsewhere.example.com:50051', http, 'agent.internal:50051', /another host than upstream\.url's/],
    ['ipv4:10.0.0.5:50051,10.0.0.6:50051', http, 'agent.internal:50051', /another host than upstream\.url's/],
    ['127.0.0.1:50051', 'http://localhost:8080/', 'localhost:50051', /another host than upstream\.url's/],
  ])("%s (card at %s): another host is not dialled but upstream.url's, at the card's port: %s, told once", (url, cardUrl, used, why) => {
    const { target, warned } = told(url, cardUrl);
    expect(target?.target).toBe(used);
    expect(warned).toEqual([{ upstream: cardUrl, advertised: url, used, msg: expect.stringMatching(why) }]);
  });

  it('another host listed in upstream.card-origins is dialled as the card names it (grpc:// plaintext, grpcs:// TLS; http(s):// alike)', () => {
    const origins = ['grpc://10.0.0.5:50051', 'grpcs://api.example.com', 'http://10.0.0.6:7000'];
    expect(told('10.0.0.5:50051', http, origins)).toEqual({ target: { target: '10.0.0.5:50051', tls: false }, warned: [] });
    expect(told('grpcs://api.example.com:443', http, origins)).toEqual({ target: { target: 'api.example.com:443', tls: true }, warned: [] });
    expect(told('grpc://10.0.0.6:7000', http, origins)).toEqual({ target: { target: '10.0.0.6:7000', tls: false }, warned: [] });
    // Listed over TLS, named plaintext (or the other way round): another address, not followed.
    expect(told('grpc://api.example.com:443', http, origins).target).toEqual({ target: 'agent.internal:443', tls: false });
    expect(told('grpcs://10.0.0.5:50051', http, origins).target).toEqual({ target: 'agent.internal:50051', tls: true });
  });

  it.each([
    ['ipv4:127.0.0.1:50051,127.0.0.1:50052', 'http://127.0.0.1:8080/', 'ipv4:127.0.0.1:50051,127.0.0.1:50052'],
    ['ipv4:127.0.0.1', 'http://127.0.0.1:8080/', '127.0.0.1:443'],
    ['ipv6:[::1]:50051,[::1]:50052', 'http://[::1]:8080/', 'ipv6:[::1]:50051,[::1]:50052'],
    ['ipv6:::1', 'http://[::1]:8080/', '[::1]:443'],
    ['IPV4:127.0.0.1:50051, 127.0.0.1:50051', 'http://127.0.0.1:8080/', '127.0.0.1:50051'],
  ])('an ipv4:/ipv6: list (%s, card at %s) is dialled whole, as grpc-js resolves it: %s', (url, cardUrl, expected) => {
    expect(grpcTarget(url, cardUrl)).toEqual({ target: expected, tls: false });
  });

  it('of a list, the addresses upstream.card-origins lets through are dialled; the others are held to upstream.url, told', () => {
    const listed = told('ipv4:10.0.0.5:50051,10.0.0.6:50051', 'http://10.0.0.5:8080/', ['grpc://10.0.0.6:50051']);
    expect(listed).toEqual({ target: { target: 'ipv4:10.0.0.5:50051,10.0.0.6:50051', tls: false }, warned: [] });
    // 10.0.0.6 unlisted: held to upstream.url's host, which the list already names.
    expect(told('ipv4:10.0.0.5:50051,10.0.0.6:50051', 'http://10.0.0.5:8080/').target).toEqual({ target: '10.0.0.5:50051', tls: false });
    // Held to a host name, which no ipv4: list can hold beside an address: the first address as held.
    expect(told('ipv4:10.0.0.5:50051,10.0.0.6:50051', http, ['grpc://10.0.0.6:50051']).target).toEqual({
      target: 'agent.internal:50051',
      tls: false,
    });
  });

  it.each(['ipv4:', 'ipv4:127.0.0.1:50051,', 'ipv6:[::1', 'ipv4:127.0.0.1:port'])('%j is no target', (url) => {
    expect(grpcTarget(url, 'http://127.0.0.1:8080/')).toBeUndefined();
  });

  it.each([
    ['grpc://agent.example.com:50051', 'grpc://agent.example.com:50051'],
    ['http://agent.example.com:50051', 'http://agent.example.com:50051'],
  ])('a card read over https that names a plaintext address (%s): dialled over TLS, told once', (url) => {
    const { target, warned } = told(url, https);
    expect(target).toEqual({ target: 'agent.example.com:50051', tls: true });
    expect(warned).toEqual([{ upstream: https, advertised: url, used: 'agent.example.com:50051', msg: expect.stringMatching(/plaintext.*TLS/) }]);
  });

  it('a card read over https names a plaintext address on another host: held to upstream.url and over TLS, both told', () => {
    const { target, warned } = told('grpc://10.0.0.5:50051', https);
    expect(target).toEqual({ target: 'agent.example.com:50051', tls: true });
    expect(warned.map((warning) => warning.msg)).toEqual([expect.stringMatching(/another host/), expect.stringMatching(/plaintext/)]);
  });

  it('plaintext from a card read over https only where upstream.card-origins lists it as grpc://', () => {
    expect(told('grpc://agent.example.com:50051', https, ['grpc://agent.example.com:50051'])).toEqual({
      target: { target: 'agent.example.com:50051', tls: false },
      warned: [],
    });
    expect(told('grpc://agent.example.com:50051', https, ['grpcs://agent.example.com:50051']).target).toEqual({
      target: 'agent.example.com:50051',
      tls: true,
    });
  });

  it("a unix socket is the gateway's machine: called only when upstream.url is there too, else told and not called", () => {
    expect(told('unix:/run/agent.sock', 'http://localhost:8080/')).toEqual({ target: { target: 'unix:/run/agent.sock', tls: false }, warned: [] });
    const remote = told('unix:/run/agent.sock', http);
    expect(remote.target).toBeUndefined();
    expect(remote.warned).toEqual([{ upstream: http, advertised: 'unix:/run/agent.sock', msg: expect.stringMatching(/unix socket/) }]);
  });
});

describe('grpcInterfaceOf: which GRPC interface of a card is called', () => {
  const grpcCard = (...interfaces: Array<{ url: string; protocolVersion?: string; tenant?: string }>) =>
    ({
      supportedInterfaces: interfaces.map((entry) => ({ protocolBinding: 'GRPC', protocolVersion: '1.0', ...entry })),
    }) as unknown as Parameters<typeof grpcInterfaceOf>[0];

  it('a card read over https that offers plaintext and TLS: the TLS one, whatever its place, and its tenant', () => {
    const card = grpcCard({ url: 'grpc://agent.example.com:50051', tenant: 'plain' }, { url: 'agent.example.com:50052', tenant: 'tls' });
    expect(grpcInterfaceOf(card, 'https://agent.example.com/')).toEqual({
      entry: expect.objectContaining({ tenant: 'tls' }),
      target: { target: 'agent.example.com:50052', tls: true },
    });
  });

  it('a card read over http: a grpcs:// interface before a plaintext one; the first when all are alike', () => {
    const http = 'http://agent.internal:8080/';
    expect(grpcInterfaceOf(grpcCard({ url: 'agent.internal:50051' }, { url: 'grpcs://agent.internal:443' }), http)?.target).toEqual({
      target: 'agent.internal:443',
      tls: true,
    });
    expect(grpcInterfaceOf(grpcCard({ url: 'agent.internal:50051' }, { url: 'agent.internal:50052' }), http)?.target.target).toBe(
      'agent.internal:50051',
    );
  });

  it('a 1.x interface before a 0.x one over TLS: the 0.3 gRPC service is another protocol', () => {
    const card = grpcCard({ url: 'grpcs://agent.internal:443', protocolVersion: '0.3' }, { url: 'agent.internal:50051' });
    expect(grpcInterfaceOf(card, 'http://agent.internal:8080/')?.target).toEqual({ target: 'agent.internal:50051', tls: false });
  });
});
