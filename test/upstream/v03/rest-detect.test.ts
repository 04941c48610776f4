/**
 * Which binding a 0.3 agent is reached with: its card's preferredTransport / additionalInterfaces
 * pick HTTP+JSON or JSON-RPC, and connectUpstream builds the matching client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { connectUpstream } from '../../../src/upstream/connect.js';
import { classifyBinding, detectUpstream, detectUpstreamProtocol } from '../../../src/upstream/detect.js';
import { passThroughWhenV025 } from '../../../src/upstream/v025/passthrough-when-v025.js';
import { capturedLog } from '../../support/captured-log.js';
import { startFakeV025 } from '../../support/fake-v025.js';
import { closeAll, ctx, open } from '../support.js';
import { startFakeV03Rest } from '../../support/fake-v03-rest.js';
import { sendMessageParams } from '../../support/v1-message.js';

afterEach(closeAll);

const config = (overrides: Record<string, unknown> = {}) => UpstreamConfig.parse(overrides);
const rest = (url = 'http://a/') => ({ url, transport: 'HTTP+JSON' });
const jsonRpc = (url = 'http://a/') => ({ url, transport: 'JSONRPC' });
const grpc = { url: 'a:1', transport: 'GRPC' };

describe('classifyBinding', () => {
  it.each([
    ['preferredTransport HTTP+JSON', { url: 'http://a/', preferredTransport: 'HTTP+JSON' }, 'HTTP+JSON'],
    [
      'preferredTransport HTTP+JSON, JSON-RPC offered too (the agent’s preference wins)',
      { preferredTransport: 'HTTP+JSON', additionalInterfaces: [rest(), jsonRpc()] },
      'HTTP+JSON',
    ],
    ['preferredTransport written in lower case', { preferredTransport: 'http+json' }, 'HTTP+JSON'],
    ['preferredTransport JSONRPC, HTTP+JSON offered too', { preferredTransport: 'JSONRPC', additionalInterfaces: [jsonRpc(), rest()] }, 'JSONRPC'],
    ['no preferredTransport, additionalInterfaces offer only HTTP+JSON', { additionalInterfaces: [rest()] }, 'HTTP+JSON'],
    ['no preferredTransport, HTTP+JSON and JSONRPC offered', { additionalInterfaces: [rest(), jsonRpc()] }, 'JSONRPC'],
    ['gRPC preferred, HTTP+JSON the only other one', { preferredTransport: 'GRPC', additionalInterfaces: [grpc, rest()] }, 'HTTP+JSON'],
    ['gRPC preferred and nothing else (JSON-RPC at `url` is the only guess left)', { preferredTransport: 'GRPC' }, 'JSONRPC'],
    ['a plain 0.3 card (JSONRPC is the default)', { url: 'http://a/' }, 'JSONRPC'],
    ['not a card', 'nope', 'JSONRPC'],
  ] as const)('%s', (_name, card, expected) => {
    expect(classifyBinding(card)).toBe(expected);
  });
});

describe('detectUpstream', () => {
  it('a 0.3 agent that offers only HTTP+JSON: 0.3 over HTTP+JSON, from one card fetch', async () => {
    const agent = await startFakeV03Rest();
    open.push(agent);
    expect(await detectUpstream(agent.url, config())).toEqual({ protocol: '0.3', binding: 'HTTP+JSON' });
    expect(await detectUpstreamProtocol(agent.url, config())).toBe('0.3');
    expect(agent.requests.map((request) => request.path)).toEqual(['/.well-known/agent-card.json', '/.well-known/agent-card.json']);
  });

  it('a 0.3 JSON-RPC agent keeps the JSON-RPC client; 0.2.5 and 1.0 agents are JSON-RPC', async () => {
    const fake = await startFakeV025({ cardPath: '/.well-known/agent-card.json', card: { protocolVersion: '0.3.0', preferredTransport: 'JSONRPC' } });
    open.push(fake);
    expect(await detectUpstream(fake.url, config())).toEqual({ protocol: '0.3', binding: 'JSONRPC' });
    const legacy = await startFakeV025({ card: { preferredTransport: 'HTTP+JSON' } });
    open.push(legacy);
    expect(await detectUpstream(legacy.url, config())).toEqual({ protocol: '0.2.5', binding: 'JSONRPC' });
  });

  it('upstream.protocol 0.3 still reads the card for the binding (without A2A-Version); 1.0 and 0.2.5 ask nothing', async () => {
    const agent = await startFakeV03Rest();
    open.push(agent);
    expect(await detectUpstream(agent.url, config({ protocol: '0.3' }))).toEqual({ protocol: '0.3', binding: 'HTTP+JSON' });
    expect(agent.requests).toHaveLength(1);
    expect(agent.requests[0]?.headers['a2a-version']).toBeUndefined();
    expect(await detectUpstream(agent.url, config({ protocol: '1.0' }))).toEqual({ protocol: '1.0', binding: 'JSONRPC' });
    expect(await detectUpstream(agent.url, config({ protocol: '0.2.5' }))).toEqual({ protocol: '0.2.5', binding: 'JSONRPC' });
    expect(await detectUpstreamProtocol(agent.url, config({ protocol: '0.3' }))).toBe('0.3');
    expect(agent.requests).toHaveLength(1);
  });
});

describe('connectUpstream', () => {
  it('builds the HTTP+JSON client for a REST-only 0.3 agent, and the 0.2.5 pass-through stays off for it', async () => {
    const agent = await startFakeV03Rest();
    open.push(agent);
    const { logger, lines } = capturedLog();
    const connected = await connectUpstream(agent.url, config(), logger);
    open.push(connected.upstream);
    expect([connected.protocol, connected.binding]).toEqual(['0.3', 'HTTP+JSON']);
    expect(lines.find((line) => line.msg === 'upstream protocol')?.binding).toBe('HTTP+JSON');
    const answer = await connected.upstream.sendMessage(sendMessageParams('hi'), ctx());
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.routed('message:send')).toHaveLength(1);

    const passThrough = passThroughWhenV025(connected, agent.url, config());
    open.push(passThrough);
    expect(passThrough.current()).toBeUndefined();
    expect(await passThrough.resolve(() => new AbortController().signal)).toBeUndefined();
  });
});
