/**
 * An agent that refuses a request as too large (HTTP 413: a2a-js's express servers take 100 kB of body
 * by default, and answer more with express's HTML error page) is answered about the caller's request,
 * for every upstream client: `-32602` InvalidParams (HTTP+JSON 400, gRPC INVALID_ARGUMENT) saying the
 * agent refused it as too large, not `-32006` InvalidAgentResponse (the agent's fault, HTTP 500).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import type { Upstream } from '../../src/core/agent-port.js';
import { ErrorCode, toRestError, type A2AError } from '../../src/model/index.js';
import { createV025Upstream } from '../../src/upstream/v025/client.js';
import { createV03RestUpstream } from '../../src/upstream/v03/rest-client.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { collect } from '../support/collect.js';
import { rejection } from '../support/rejection.js';
import { sendMessageParams } from '../support/v1-message.js';
import { closeAll, ctx, open } from './support.js';

afterEach(closeAll);

/** What express (finalhandler) answers a body over its limit with, stack and paths included. */
const EXPRESS_413_PAGE =
  '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n' +
  '<pre>PayloadTooLargeError: request entity too large<br> &nbsp; &nbsp;at readStream (/srv/agent/node_modules/raw-body/index.js:163:17)</pre>\n' +
  '</body>\n</html>\n';

type Refusal = (res: ServerResponse) => void;

const htmlPage: Refusal = (res) => {
  res.writeHead(413, { 'content-type': 'text/html; charset=utf-8' }).end(EXPRESS_413_PAGE);
};

/** A 1.0 server's google.rpc.Status for the 413, with no A2A reason: the status still decides. */
const rpcStatus: Refusal = (res) => {
  res
    .writeHead(413, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { code: 413, status: 'INVALID_ARGUMENT', message: 'request entity too large', details: [] } }));
};

type Kind = '1.0 JSON-RPC' | '1.0 HTTP+JSON' | '0.3 HTTP+JSON' | '0.2.5 JSON-RPC';

function cardOf(kind: Kind, url: string): { path: string; card: Record<string, unknown> } {
  const common = { name: 'big-refuser', description: 'refuses every call as too large', version: '1', skills: [] };
  const modes = { defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], capabilities: { streaming: true } };
  switch (kind) {
    case '1.0 JSON-RPC':
    case '1.0 HTTP+JSON': {
      const protocolBinding = kind === '1.0 JSON-RPC' ? 'JSONRPC' : 'HTTP+JSON';
      const card = { ...common, ...modes, supportedInterfaces: [{ url: `${url}/a2a/`, protocolBinding, protocolVersion: '1.0' }] };
      return { path: '/.well-known/agent-card.json', card };
    }
    case '0.3 HTTP+JSON':
      return { path: '/.well-known/agent-card.json', card: { ...common, ...modes, protocolVersion: '0.3.0', url, preferredTransport: 'HTTP+JSON' } };
    case '0.2.5 JSON-RPC':
      return { path: '/.well-known/agent.json', card: { ...common, ...modes, protocolVersion: '0.2.5', url: `${url}/rpc` } };
  }
}

/** An agent that serves its card and refuses every other request with `refusal`. */
async function refusingAgent(kind: Kind, refusal: Refusal): Promise<{ upstream: Upstream; refused: () => number }> {
  let refused = 0;
  let url = '';
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { path, card } = cardOf(kind, url);
      if (req.method === 'GET' && req.url === path) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
        return;
      }
      refused += 1;
      refusal(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  const config = UpstreamConfig.parse({});
  const upstream: Upstream =
    kind === '0.3 HTTP+JSON'
      ? createV03RestUpstream({ baseUrl: url, config })
      : kind === '0.2.5 JSON-RPC'
        ? createV025Upstream({ baseUrl: url, config, dialect: '0.2.5' })
        : createV1Upstream({ baseUrl: url, config, ...(kind === '1.0 HTTP+JSON' ? { binding: 'HTTP+JSON' as const } : {}) });
  open.push(upstream);
  return { upstream, refused: () => refused };
}

function expectTooLarge(error: A2AError): void {
  expect(error.code).toBe(ErrorCode.InvalidParams);
  expect(error.message).toMatch(/^The upstream agent refused the request as too large \(HTTP 413\)/);
  expect(error.message).not.toMatch(/node_modules|srv|PayloadTooLarge/);
  expect(error.agentHttpStatus).toBe(413);
  // What the HTTP+JSON binding (and so gRPC) makes of it: a client error with A2A's reason, not a 500.
  expect(toRestError(error)).toMatchObject({ status: 400, body: { error: { status: 'INVALID_ARGUMENT', details: [{ reason: 'INVALID_PARAMS' }] } } });
}

const KINDS: Kind[] = ['1.0 JSON-RPC', '1.0 HTTP+JSON', '0.3 HTTP+JSON', '0.2.5 JSON-RPC'];

describe.each(KINDS)('a %s agent answering HTTP 413', (kind) => {
  it('SendMessage is the caller\'s -32602 "refused as too large", not the agent\'s -32006', async () => {
    const { upstream, refused } = await refusingAgent(kind, htmlPage);
    expectTooLarge(await rejection(upstream.sendMessage(sendMessageParams('x'.repeat(200_000)), ctx())));
    expect(refused()).toBe(1);
  });

  it('SendStreamingMessage fails the same way, before any event', async () => {
    const { upstream } = await refusingAgent(kind, htmlPage);
    expectTooLarge(await rejection(collect(upstream.sendStreamingMessage(sendMessageParams('x'.repeat(200_000)), ctx()))));
  });
});

describe.each<Kind>(['1.0 HTTP+JSON', '0.3 HTTP+JSON'])('a %s agent answering 413 with a google.rpc.Status of no A2A reason', (kind) => {
  it('is read by its HTTP status: the same -32602', async () => {
    const { upstream } = await refusingAgent(kind, rpcStatus);
    expectTooLarge(await rejection(upstream.sendMessage(sendMessageParams('big'), ctx())));
  });
});
