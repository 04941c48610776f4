/**
 * The gRPC upstream client over TLS to an agent its card names by IP address: no TLS server name is sent (RFC 6066
 * allows none for an address; Node warns on the gateway's stderr, DEP0123, when one is set), yet the agent's
 * certificate is still checked, against that address; an agent named by host name still gets its name (SNI).
 */
import { connect as connectTcp, type AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { createGrpcUpstream } from '../../../src/upstream/v1/grpc-client.js';
import { makeCertificates, type Certificates } from '../../support/certificates.js';
import { rejection } from '../../support/rejection.js';
import { startFakeGrpcAgent, type FakeGrpcAgent } from './fake-grpc-agent.js';

/** The agent behind TLS: each connection's TLS ended here (recording the server name it asked for) and piped to it. */
interface TlsFront {
  port: number;
  /** Each connection's SNI, false when the client sent none. */
  serverNames: Array<string | false | null>;
  close(): Promise<void>;
}

let agent: FakeGrpcAgent;
let certificates: Certificates;
let otherCa: Certificates;
const fronts: TlsFront[] = [];

async function tlsFront(host: string): Promise<TlsFront> {
  const [cert, key] = await Promise.all([readFile(certificates.file('server.pem')), readFile(certificates.file('server.key'))]);
  const [agentHost, agentPort] = agent.grpcAddress.split(':') as [string, string];
  const serverNames: TlsFront['serverNames'] = [];
  const server: Server = createServer({ cert, key, ALPNProtocols: ['h2'] }, (secured) => {
    serverNames.push(secured.servername);
    const plain = connectTcp(Number(agentPort), agentHost);
    secured.pipe(plain).pipe(secured);
    secured.on('error', () => plain.destroy());
    plain.on('error', () => secured.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const front: TlsFront = {
    port: (server.address() as AddressInfo).port,
    serverNames,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  fronts.push(front);
  return front;
}

beforeAll(async () => {
  agent = await startFakeGrpcAgent();
  [certificates, otherCa] = await Promise.all([makeCertificates({ servers: ['server'] }), makeCertificates({})]);
});
afterAll(async () => {
  await Promise.all(fronts.map((front) => front.close()));
  await agent?.close();
  await certificates?.cleanup();
  await otherCa?.cleanup();
});

const ctx = () => ({ principal: '', signal: new AbortController().signal });

/** A gRPC upstream to `host:port` over TLS (its card read over https), trusting `ca`; handed its card (no card fetch). */
const upstreamTo = (host: string, port: number, ca = certificates) =>
  createGrpcUpstream({
    baseUrl: `https://${host}:${port}`,
    config: UpstreamConfig.parse({ tls: { 'ca-file': ca.file('ca.pem') } }),
    card: {
      name: 'tls-grpc-agent',
      description: 'gRPC over TLS',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${host}:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    },
  });

describe('the gRPC upstream over TLS', () => {
  it('to an IP address: called with no server name sent, and no DEP0123 warning on stderr', async () => {
    const front = await tlsFront('127.0.0.1');
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    const upstream = upstreamTo('127.0.0.1', front.port);
    try {
      const calls = agent.calls.length;
      expect(await upstream.getTask({ id: 'task-1' }, ctx())).toMatchObject({ id: 'task-1' });
      expect(agent.calls.slice(calls).map((call) => call.method)).toEqual(['getTask']);
      expect(front.serverNames).toEqual([false]);
      // Node emits warnings on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => `${(warning as NodeJS.ErrnoException).code}: ${warning.message}`)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await upstream.close();
    }
  });

  it('to an IP address: the certificate is still checked, its CA and that it names the address', async () => {
    const front = await tlsFront('127.0.0.1');
    // Linux routes all of 127/8 here; the certificate names 127.0.0.1 (and localhost), not 127.0.0.2.
    const unnamed = await tlsFront('127.0.0.2');
    const calls = agent.calls.length;
    for (const upstream of [upstreamTo('127.0.0.1', front.port, otherCa), upstreamTo('127.0.0.2', unnamed.port)]) {
      try {
        expect((await rejection(upstream.getTask({ id: 'task-1' }, ctx()))).message).toBe('Upstream agent is unavailable');
      } finally {
        await upstream.close();
      }
    }
    expect(agent.calls.slice(calls)).toEqual([]);
  });

  it('to a host name: called with that name as the server name, as before', async () => {
    const front = await tlsFront('127.0.0.1');
    const upstream = upstreamTo('localhost', front.port);
    try {
      expect(await upstream.getTask({ id: 'task-1' }, ctx())).toMatchObject({ id: 'task-1' });
      expect(front.serverNames).toEqual(['localhost']);
    } finally {
      await upstream.close();
    }
  });
});
