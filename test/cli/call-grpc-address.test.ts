/**
 * `a2a-bridge call` on a gRPC-only agent: the card is read at the URL typed, and its GRPC address is dialled at
 * the typed host and the card's port (upstream/card-address.ts): a card naming another host does not choose
 * where --token goes. A turn that fails names the address really dialled, not the card's as written (a wildcard
 * `0.0.0.0:port`, another host).
 */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGrpcAgent, type FakeGrpcAgent } from '../e2e/grpc/fake-grpc-agent.js';
import { inProcess } from './in-process.js';

let agent: FakeGrpcAgent;
beforeAll(async () => {
  agent = await startFakeGrpcAgent();
});
afterAll(async () => {
  await agent?.close();
});

describe("a2a-bridge call, a gRPC agent's card naming its address", { timeout: 30_000 }, () => {
  it.each([
    ['another host (where nothing listens)', () => `grpc://127.0.0.9:${agent.grpcAddress.split(':')[1]}`],
    ['the wildcard host', () => `0.0.0.0:${agent.grpcAddress.split(':')[1]}`],
  ])("%s: the turn goes to the typed host at the card's port, and its failure names that address", async (_case, advertised) => {
    agent.advertised = advertised();
    agent.behave = { kind: 'fail', code: status.INTERNAL, details: 'the agent broke' };
    const before = agent.calls.length;
    const run = await inProcess(['call', agent.url, 'hi', '--no-stream', '--token', 'cli-token-0123456789']);
    expect(run.stderr).toBe(`a2a-bridge: the call to ${agent.grpcAddress} failed: the agent broke (A2A error -32603)\n`);
    expect(run.code).toBe(3);
    expect(agent.calls.slice(before).map((call) => call.metadata.authorization)).toEqual(['Bearer cli-token-0123456789']);
  });
});
