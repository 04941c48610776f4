/**
 * What the operator's log says when the card is not where or what `upstream.*` says it is: the full URLs
 * read (without credentials), and for a card of another version, that version and the setting to change.
 * What a caller reads stays as it was.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { ErrorCode } from '../../src/model/index.js';
import { connectUpstream } from '../../src/upstream/connect.js';
import { detectUpstreamProtocol } from '../../src/upstream/detect.js';
import { failureCause } from '../../src/upstream/failure-cause.js';
import { startSdkV1Agent, SDK_JSONRPC_PATH } from '../support/sdk-v1-agent.js';
import { rejection } from '../support/rejection.js';
import { json, startFakeV025 } from '../support/fake-v025.js';
import { closeAll, open } from './support.js';

afterEach(closeAll);

/** `http://op:s3cret@127.0.0.1:<port>`: the credentials the messages must leave out. */
const withCredentials = (url: string): string => url.replace('://', '://op:s3cret@');

describe('upstream.protocol: 0.2.5 in front of a 1.0 agent', () => {
  it('logs that the card is a 1.0 one and which setting to change; the caller reads what it read before', async () => {
    const agent = await startSdkV1Agent();
    open.push(agent);
    const base = withCredentials(agent.url);
    const connected = await connectUpstream(base, UpstreamConfig.parse({ protocol: '0.2.5' }), createLogger('silent'));
    open.push(connected.upstream);
    const error = await rejection(connected.upstream.fetchCard());
    expect(error.code).toBe(ErrorCode.InvalidAgentResponse);
    expect(error.message).toMatch(/^The upstream agent sent an invalid agent card \(/);
    expect(failureCause(error).cause).toBe(
      `the card at http://[redacted]@${agent.url.slice('http://'.length)}/.well-known/agent-card.json is not a 0.2.5 card (it has supportedInterfaces: a 1.0 card); set upstream.protocol to auto or 1.0`,
    );
  });

  it.each([
    [
      'a 1.0 card naming its version only',
      { name: 'x', protocolVersion: '1.0' },
      /^is not a 0\.2\.5 card \(its protocolVersion is 1\.0: a 1\.0 card\); set upstream\.protocol to auto or 1\.0$/,
    ],
    [
      'a malformed 0.2.5 card',
      { name: 'x', protocolVersion: '0.2.5', url: 42 },
      /^is not a valid 0\.2\.5 card: The upstream agent sent an invalid agent card \(\w+: Invalid input/,
    ],
  ])('%s: the log names the card read', async (_name, card, said) => {
    const fake = await startFakeV025({ card: null, routes: { '/.well-known/agent.json': (_call, res) => json(res, 200, card) } });
    open.push(fake);
    const connected = await connectUpstream(withCredentials(fake.url), UpstreamConfig.parse({ protocol: '0.2.5' }), createLogger('silent'));
    open.push(connected.upstream);
    const error = await rejection(connected.upstream.fetchCard());
    expect(error.code).toBe(ErrorCode.InvalidAgentResponse);
    const where = `the card at http://[redacted]@${fake.url.slice('http://'.length)}/.well-known/agent.json `;
    const { cause } = failureCause(error);
    expect(cause.startsWith(where)).toBe(true);
    expect(cause.slice(where.length)).toMatch(said);
  });
});

describe('upstream.url with a path, protocol: auto', () => {
  it('names the full URLs the detection read, without the credentials', async () => {
    const server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const base = `http://op:s3cret@${hostPort}${SDK_JSONRPC_PATH}`;
    await expect(detectUpstreamProtocol(base, UpstreamConfig.parse({}))).rejects.toThrow(
      `no agent card at http://[redacted]@${hostPort}/a2a/jsonrpc/.well-known/agent-card.json (HTTP 404) or http://[redacted]@${hostPort}/a2a/jsonrpc/.well-known/agent.json (HTTP 404)`,
    );
  });
});
