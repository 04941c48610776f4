/**
 * A gRPC-only 1.0 agent whose card names its GRPC interface on another host than upstream.url's: the gateway
 * dialled that host with upstream.auth's credentials (as metadata) and every caller's words, a host the operator
 * never named (whoever wrote the card, or altered it on a plain-http path, chose it). It now dials upstream.url's
 * host at the card's port, with one warning; `upstream.card-origins` (`grpc://host:port`) lets the card name one.
 * An agent serving its card on one port and gRPC on another of the same host is followed as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { startFakeGrpcAgent, type FakeGrpcAgent } from '../e2e/grpc/fake-grpc-agent.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const UPSTREAM_TOKEN = 'upstream-secret-token-0123456789abcdef';

interface Setup {
  agent: FakeGrpcAgent;
  elsewhere: FakeGrpcAgent;
  gateway: TestGateway;
  close(): Promise<void>;
}

/**
 * The agent (card and gRPC on 127.0.0.1) and another gRPC agent on 127.0.0.2 at the same port, so that a call
 * reaches one or the other by host alone; the agent's card says `advertise(elsewhere, agent)`.
 */
async function gatewayBefore(
  advertise: (elsewhere: FakeGrpcAgent, agent: FakeGrpcAgent) => string,
  cardOrigins?: (elsewhere: FakeGrpcAgent) => string[],
): Promise<Setup> {
  const agent = await startFakeGrpcAgent();
  const elsewhere = await startFakeGrpcAgent({ grpcHost: '127.0.0.2', grpcPort: Number(agent.grpcAddress.split(':')[1]) });
  agent.advertised = advertise(elsewhere, agent);
  const gateway = await startTestGateway({
    upstream: { url: agent.url, auth: { token: UPSTREAM_TOKEN }, ...(cardOrigins ? { 'card-origins': cardOrigins(elsewhere) } : {}) },
  });
  return {
    agent,
    elsewhere,
    gateway,
    close: async () => {
      await gateway.close();
      await Promise.all([agent.close(), elsewhere.close()]);
    },
  };
}

/** What an A2A 1.0 caller reads back from a GetTask through the gateway: the task's id, or the error. */
async function getTaskThrough(gateway: TestGateway): Promise<string> {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'task-1' } }),
  });
  const body = (await response.json()) as { result?: { id: string } };
  return body.result?.id ?? JSON.stringify(body);
}

const tokensSeen = (agent: FakeGrpcAgent) => agent.calls.map((call) => call.metadata.authorization);
const warningsOf = (gateway: TestGateway) => gateway.log().filter((line) => /another host than upstream\.url/.test(line.msg));

describe("a card naming another host's gRPC address", () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await gatewayBefore((elsewhere) => `grpc://${elsewhere.grpcAddress}`);
  });
  afterAll(async () => setup?.close());

  it("is dialled at upstream.url's host, the card's port kept: the credentials and requests go nowhere else", async () => {
    expect(await getTaskThrough(setup.gateway)).toBe('task-1');
    expect(await getTaskThrough(setup.gateway)).toBe('task-1');
    expect(tokensSeen(setup.elsewhere)).toEqual([]);
    expect(tokensSeen(setup.agent)).toEqual([`Bearer ${UPSTREAM_TOKEN}`, `Bearer ${UPSTREAM_TOKEN}`]);
  });

  it('is told the operator once, naming both addresses and how to allow it, not the credentials', () => {
    const warnings = warningsOf(setup.gateway);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ advertised: `grpc://${setup.elsewhere.grpcAddress}`, used: setup.agent.grpcAddress });
    expect(warnings[0]!.msg).toContain('upstream.card-origins');
    expect(JSON.stringify(warnings[0])).not.toContain(UPSTREAM_TOKEN);
  });
});

describe('a card naming a gRPC address upstream.card-origins allows', () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await gatewayBefore(
      (elsewhere) => elsewhere.grpcAddress,
      (elsewhere) => [`grpc://${elsewhere.grpcAddress}`],
    );
  });
  afterAll(async () => setup?.close());

  it('is followed, without a warning', async () => {
    expect(await getTaskThrough(setup.gateway)).toBe('task-1');
    expect(tokensSeen(setup.elsewhere)).toEqual([`Bearer ${UPSTREAM_TOKEN}`]);
    expect(tokensSeen(setup.agent)).toEqual([]);
    expect(warningsOf(setup.gateway)).toEqual([]);
  });
});

describe("a card naming gRPC on another port of upstream.url's host (the card served on one, gRPC on another)", () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await gatewayBefore((_elsewhere, agent) => agent.grpcAddress);
  });
  afterAll(async () => setup?.close());

  it('is followed, without a warning', async () => {
    expect(new URL(setup.agent.url).port).not.toBe(setup.agent.grpcAddress.split(':')[1]);
    expect(await getTaskThrough(setup.gateway)).toBe('task-1');
    expect(tokensSeen(setup.agent)).toEqual([`Bearer ${UPSTREAM_TOKEN}`]);
    expect(setup.gateway.log().filter((line) => /card names/.test(line.msg))).toEqual([]);
  });
});

describe('upstream.card-origins, a gRPC address', () => {
  it('is written grpc://host:port (grpcs:// over TLS); a path, credentials or a grpc-js target are refused', () => {
    const origins = ['grpc://10.0.0.5:50051', 'grpcs://api.example.com', 'grpc://[::1]:50051/'];
    expect(UpstreamConfig.parse({ 'card-origins': origins })['card-origins']).toEqual(origins);
    for (const bad of ['grpc://10.0.0.5:50051/a2a.v1', 'grpc://u:p@10.0.0.5:50051', 'grpc://', 'dns:///10.0.0.5:50051', '10.0.0.5:50051']) {
      expect(UpstreamConfig.safeParse({ 'card-origins': [bad] }).success, bad).toBe(false);
    }
  });
});
