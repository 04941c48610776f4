/**
 * An agent (or the auth layer in front of it) that refuses the gateway's credentials with HTTP 401/403 and a body
 * that names an error of its own (a JSON-RPC error envelope, a google.rpc.Status with an A2A reason, an a2a-js
 * `{code, message}`): the status decides. The caller reads the gateway's words for an agent it cannot use, the
 * facade's turn recovery ends at once (upstreamFault 'credentials'), never the body's code or words.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { createV03RestUpstream } from '../../src/upstream/v03/rest-client.js';
import { collect } from '../support/collect.js';
import { jsonRpcAgentCard } from '../support/json-rpc-agent.js';
import { rejection } from '../support/rejection.js';
import { sendMessageParams } from '../support/v1-message.js';
import { closeAll, ctx, open } from './support.js';

afterEach(closeAll);

/** An agent serving `card(url)` and answering every other request with `status` and `body`. */
async function refusingAgent(card: (url: string) => unknown, status: number, body: unknown): Promise<string> {
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = req.url === '/.well-known/agent-card.json' ? { status: 200, body: card(url) } : { status, body };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const REFUSED = { code: -32603, message: 'Upstream agent is unavailable', upstreamFault: 'credentials' };
const about = { name: 'a', description: 'a', skill: { id: 's', name: 's', description: 's' } };

describe('a 1.0 JSON-RPC agent answering 401/403 with a JSON-RPC error envelope', () => {
  it.each([401, 403])('HTTP %i: refused credentials on unary calls and streams, not the envelope error', async (status) => {
    const envelope = { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Task not found: invalid api key' } };
    const baseUrl = await refusingAgent((url) => jsonRpcAgentCard(url, about), status, envelope);
    const upstream = createV1Upstream({ baseUrl, config: UpstreamConfig.parse({}) });
    open.push(upstream);
    expect(await rejection(upstream.getTask({ id: 't' }, ctx()))).toMatchObject({ ...REFUSED, agentHttpStatus: status });
    const streamed = await rejection(collect(upstream.sendStreamingMessage(sendMessageParams('hi'), ctx())));
    expect(streamed).toMatchObject({ ...REFUSED, agentHttpStatus: status });
  });
});

describe('a 0.3 HTTP+JSON agent answering 401/403 with an error body that names a code', () => {
  const v03Card = (url: string) => ({
    protocolVersion: '0.3.0',
    name: 'x',
    description: 'x',
    url,
    preferredTransport: 'HTTP+JSON',
    version: '1',
    capabilities: { streaming: true },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  });
  it.each([
    ["a2a-js's {code, message}", 401, { code: -32603, message: 'Unauthorized: bad key' }],
    [
      'a google.rpc.Status with an A2A reason',
      403,
      {
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: 'no such task for this key',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
        },
      },
    ],
  ])('%s on HTTP %i: refused credentials, not the code it names', async (_name, status, body) => {
    const baseUrl = await refusingAgent(v03Card, status, body);
    const upstream = createV03RestUpstream({ baseUrl, config: UpstreamConfig.parse({}) });
    open.push(upstream);
    expect(await rejection(upstream.getTask({ id: 't' }, ctx()))).toMatchObject({ ...REFUSED, agentHttpStatus: status });
  });
});
