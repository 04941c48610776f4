/**
 * An agent's card naming a loopback address (the a2a-js README sample's `http://localhost:41241/`) while the gateway
 * reaches it elsewhere (`upstream.url: http://agent-host:8080`, a port mapping or a service name): every call went to
 * the gateway's own machine and failed "Upstream agent is unavailable", though the card was read at upstream.url. The
 * card's address is now called at upstream.url's origin (its path kept), with one warning in the log, as a wildcard
 * host (0.0.0.0) already was.
 */
import { lookup } from 'node:dns';
import { createServer } from 'node:net';
import type { AgentExecutor } from 'a2a-sdk-025/server';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import type { AgentCard } from '../../src/model/index.js';
import { upstreamFor } from '../../src/upstream/connect.js';
import { isLoopbackHost } from '../../src/upstream/card-address.js';
import { restEndpoint } from '../../src/upstream/v03/rest-client.js';
import { jsonRpcEndpoint, restInterfaceEndpoint, usableUrl } from '../../src/upstream/v1/client.js';
import { SDK_V025_RPC_PATH, startSdkV025Server, type RunningSdkV025Server } from '../support/sdk-v025-server.js';
import { sendMessageParams } from '../support/v1-message.js';
import { ctx } from './support.js';

const BASE = 'http://agent-host:8080/';

describe('usableUrl: a card address on loopback, the agent reached elsewhere', () => {
  it("becomes upstream.url's origin, the card's path kept, and says so", () => {
    const told: Array<[string, string]> = [];
    const notice = (advertised: string, used: string) => void told.push([advertised, used]);
    expect(usableUrl('http://localhost:41241/', BASE, notice)).toBe(BASE);
    expect(usableUrl('http://127.0.0.1:9999/a2a/v1', BASE, notice)).toBe('http://agent-host:8080/a2a/v1');
    expect(usableUrl('http://[::1]:41241/rpc', 'https://agents.example.com/', notice)).toBe('https://agents.example.com/rpc');
    // Loopback as a URL may also write it: a fully qualified localhost, 127.0.0.1 mapped into IPv6.
    expect(usableUrl('http://localhost.:41241/rpc', BASE, notice)).toBe('http://agent-host:8080/rpc');
    expect(usableUrl('http://[::ffff:127.0.0.1]:41241/rpc', BASE, notice)).toBe('http://agent-host:8080/rpc');
    expect(told[0]).toEqual(['http://localhost:41241/', BASE]);
    expect(told).toHaveLength(5);
  });

  it("stays as it is when upstream.url is on loopback too and upstream.card-origins lists the card's origin", () => {
    const told: string[] = [];
    // A local agent serving its card and its RPC on two ports; a wildcard upstream.url is this machine too.
    const notice = Object.assign((advertised: string) => void told.push(advertised), {
      allowedOrigins: ['http://localhost:41241', 'http://localhost:9000'],
    });
    expect(usableUrl('http://localhost:41241/', 'http://127.0.0.1:8080/', notice)).toBe('http://localhost:41241/');
    expect(usableUrl('http://localhost:9000/rpc', 'http://0.0.0.0:8080/', notice)).toBe('http://localhost:9000/rpc');
    expect(usableUrl('http://localhost:9000/rpc', 'http://[::]:8080/', notice)).toBe('http://localhost:9000/rpc');
    expect(usableUrl('http://0.0.0.0:41241/a2a', BASE, notice)).toBe('http://agent-host:8080/a2a');
    expect(told).toEqual([]);
    // Without it, another port or host is upstream.url's origin too (card-other-origin.test.ts).
    expect(usableUrl('http://localhost:41241/rpc', 'http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/rpc');
    expect(usableUrl('http://other-host:41241/a2a', BASE)).toBe('http://agent-host:8080/a2a');
  });

  it('holds for each binding: 1.0 JSON-RPC and HTTP+JSON interfaces, a 0.3 card preferring HTTP+JSON', () => {
    const card = {
      supportedInterfaces: [
        { url: 'http://localhost:41241/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'http://localhost:41241/rest/', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    } as unknown as AgentCard;
    expect(jsonRpcEndpoint(card, BASE)).toBe('http://agent-host:8080/rpc');
    expect(restInterfaceEndpoint(card, BASE)).toBe('http://agent-host:8080/rest');
    const v03 = { url: 'http://localhost:41241/agent', preferredTransport: 'HTTP+JSON' } as Parameters<typeof restEndpoint>[0];
    expect(restEndpoint(v03, 'http://agent-host:8080')).toBe('http://agent-host:8080/agent');
  });

  it('loopback is localhost, 127.0.0.0/8 and ::1, as a URL writes them', () => {
    const loopback = ['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', 'app.localhost.', '127.0.0.1', '127.1.2.3', '[::1]', '::1'];
    const mapped = ['[::ffff:127.0.0.1]', '[::ffff:127.1.2.3]'].map((host) => new URL(`http://${host}/`).hostname);
    expect([...loopback, ...mapped, '::ffff:127.0.0.1'].filter((host) => !isLoopbackHost(host))).toEqual([]);
    const elsewhere = ['agent-host', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '[::]', '0.0.0.0', '[::ffff:10.0.0.1]', 'localhost..'];
    expect(elsewhere.map((host) => new URL(`http://${host}/`).hostname).filter(isLoopbackHost)).toEqual([]);
  });
});

describe('a real a2a-js 0.2.5 agent whose card says localhost, reached as agent-host', () => {
  let agent: RunningSdkV025Server;
  let deadPort: number;
  // `agent-host` is this machine, as a service name would be the agent's container.
  const dispatcher = new Agent({
    connect: { lookup: (host, options, callback) => lookup(host === 'agent-host' ? '127.0.0.1' : host, options, callback) },
  });

  beforeAll(async () => {
    // The agent's own port inside its container: nothing listens there from the gateway's side.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    deadPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const executor: AgentExecutor = {
      async execute({ taskId, contextId }, bus) {
        bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'completed' } });
        bus.finished();
      },
      async cancelTask() {},
    };
    const card = { name: 'sample', description: 'the README sample card', skills: [], url: `http://localhost:${deadPort}${SDK_V025_RPC_PATH}/` };
    agent = await startSdkV025Server({ card, executor });
  });
  afterAll(async () => {
    await agent?.close();
    await dispatcher.close();
  });

  it('a call answers; the log says once that the card address is not called', async () => {
    const warnings: Array<{ fields: object; message: string }> = [];
    const logger = { warn: (fields: object, message: string) => void warnings.push({ fields, message }) };
    const baseUrl = agent.url.replace('127.0.0.1', 'agent-host');
    const upstream = upstreamFor({ protocol: '0.2.5' }, baseUrl, UpstreamConfig.parse({}), dispatcher, logger);
    try {
      for (let turn = 0; turn < 2; turn++) {
        const answer = await upstream.sendMessage(sendMessageParams(`hi ${turn}`), ctx());
        expect('task' in answer ? answer.task.status.state : answer).toBe('TASK_STATE_COMPLETED');
        await upstream.fetchCard();
      }
      expect(warnings).toEqual([
        {
          fields: { upstream: baseUrl, advertised: `http://localhost:${deadPort}${SDK_V025_RPC_PATH}/`, used: `${baseUrl}${SDK_V025_RPC_PATH}/` },
          message: expect.stringMatching(/loopback address/),
        },
      ]);
    } finally {
      await upstream.close();
    }
  });
});
