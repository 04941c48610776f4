/** Choosing the binding of a 1.0 agent (JSON-RPC, HTTP+JSON, gRPC), and reading the gRPC address out of its card. */
import { describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { classifyV1Binding, detectUpstream } from '../../src/upstream/detect.js';
import { grpcTarget } from '../../src/upstream/grpc-target.js';

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
    ['127.0.0.1:50051', http, { target: '127.0.0.1:50051', tls: false }],
    ['agent.internal:50051', https, { target: 'agent.internal:50051', tls: true }],
    ['0.0.0.0:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['[::]:50051', http, { target: 'agent.internal:50051', tls: false }],
    ['grpc://10.0.0.5:50051', https, { target: '10.0.0.5:50051', tls: false }],
    ['grpcs://agent.example.com:443', http, { target: 'agent.example.com:443', tls: true }],
    ['https://agent.example.com', http, { target: 'agent.example.com:443', tls: true }],
    ['http://0.0.0.0:7000/', http, { target: 'agent.internal:7000', tls: false }],
    ['dns:///agent.internal:50051', http, { target: 'dns:///agent.internal:50051', tls: false }],
    ['unix:/run/agent.sock', http, { target: 'unix:/run/agent.sock', tls: false }],
  ])('%s (card at %s) → %j', (url, cardUrl, expected) => {
    expect(grpcTarget(url, cardUrl)).toEqual(expected);
  });

  it.each(['', '   ', 'ftp://agent:21'])('%j is no target', (url) => {
    expect(grpcTarget(url, http)).toBeUndefined();
  });
});
