/**
 * Which protocol the upstream speaks (from its card, or as configured), and connecting to it: a
 * 0.2.5 agent, a 0.3 one, a 1.0 one, and one that is down when the gateway starts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { UpstreamConfig, defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { ErrorCode } from '../../src/model/index.js';
import { connectUpstream } from '../../src/upstream/connect.js';
import { classifyCard, classifyV1Binding, detectUpstreamProtocol } from '../../src/upstream/detect.js';
import { capturedLog } from '../support/captured-log.js';
import { startFakeIacCode } from '../support/fake-iac-code.js';
import { startHungServer } from '../support/hung-server.js';
import { startSdkV025Agent } from '../support/sdk-v025-agent.js';
import { defaultCard, json, startFakeV025 } from '../support/fake-v025.js';
import { closeAll, ctx, open } from './support.js';
import { rejection } from '../support/rejection.js';
import { sendMessageParams } from '../support/v1-message.js';
import { waitUntil } from '../support/wait-until.js';

afterEach(closeAll);

const config = (overrides: Record<string, unknown> = {}) => UpstreamConfig.parse(overrides);

describe('classifyCard', () => {
  const v1 = { name: 'a', supportedInterfaces: [{ url: 'http://a/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
  it.each([
    ['a 1.0 card', v1, 'agent-card.json', '1.0'],
    [
      'a 1.0 card with the legacy 0.3 fields (iac-code, a2a-js compat)',
      { ...v1, url: 'http://a/', protocolVersion: '0.3.0' },
      'agent-card.json',
      '1.0',
    ],
    [
      'a 1.0-shaped card whose every interface says 0.3 (a2a-js 1.x served only as 0.3)',
      { name: 'a', supportedInterfaces: [{ url: 'http://a/', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' }] },
      'agent-card.json',
      '0.3',
    ],
    [
      'a 1.0-shaped card listing a 0.3 and a 1.0 interface',
      { name: 'a', supportedInterfaces: [{ url: 'http://a/', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }, ...v1.supportedInterfaces] },
      'agent-card.json',
      '1.0',
    ],
    ['a 0.3 card', { url: 'http://a/', protocolVersion: '0.3.0' }, 'agent-card.json', '0.3'],
    ['a 0.2.5 card', { url: 'http://a/', protocolVersion: '0.2.5' }, 'agent.json', '0.2.5'],
    ['a 0.2.6 card found at agent-card.json', { url: 'http://a/', protocolVersion: '0.2.6' }, 'agent-card.json', '0.2.5'],
    ['a versionless legacy card at agent.json', { url: 'http://a/' }, 'agent.json', '0.2.5'],
    ['a versionless legacy card at agent-card.json', { url: 'http://a/' }, 'agent-card.json', '0.3'],
    ['not a card', { hello: 'world' }, 'agent.json', undefined],
    ['not an object', 'nope', 'agent.json', undefined],
  ] as const)('%s', (_name, card, foundAt, expected) => {
    expect(classifyCard(card, foundAt)).toBe(expected);
  });
});

describe('classifyV1Binding', () => {
  it('leaves out the interfaces an a2a-js 1.x agent lists only for 0.3 (it refuses 1.0 calls there)', () => {
    const card = {
      supportedInterfaces: [
        { url: 'http://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: 'http://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    };
    expect(classifyV1Binding(card, config())).toBe('HTTP+JSON');
  });
});

describe('detectUpstreamProtocol', () => {
  it('a real a2a-js 0.2.5 agent: agent-card.json missing, agent.json says 0.2.5 (also without a version)', async () => {
    for (const protocolVersion of ['0.2.5', null]) {
      const agent = await startSdkV025Agent({ protocolVersion });
      open.push(agent);
      expect(await detectUpstreamProtocol(agent.url, config())).toBe('0.2.5');
      expect(agent.received.map((request) => request.path)).toEqual(['/.well-known/agent-card.json', '/.well-known/agent.json']);
      expect(agent.received[0]?.headers['a2a-version']).toBe('1.0');
    }
  });

  it('a 1.0 agent (iac-code) from agent-card.json asked for with A2A-Version: 1.0 and credentials', async () => {
    const fake = await startFakeIacCode({ auth: { token: 'tok' } });
    open.push(fake);
    expect(await detectUpstreamProtocol(`${fake.url}/`, config({ auth: { token: 'tok' } }))).toBe('1.0');
    expect(fake.requests[0]?.headers['a2a-version']).toBe('1.0');
  });

  it('a 0.3 agent from agent-card.json', async () => {
    const fake = await startFakeV025({ cardPath: '/.well-known/agent-card.json', card: { protocolVersion: '0.3.0' } });
    open.push(fake);
    expect(await detectUpstreamProtocol(fake.url, config())).toBe('0.3');
  });

  it('upstream.protocol other than auto wins without asking the agent', async () => {
    const fake = await startFakeV025();
    open.push(fake);
    expect(await detectUpstreamProtocol(fake.url, config({ protocol: '0.3' }))).toBe('0.3');
    expect(await detectUpstreamProtocol(fake.url, config({ protocol: '1.0' }))).toBe('1.0');
    expect(fake.calls).toHaveLength(0);
  });

  it('a 1.0 card that refuses the credentials (401/403) is refused credentials, not a 0.2.5 agent at agent.json', async () => {
    for (const status of [401, 403]) {
      // An a2a-bridge with gateway auth and an open facade answers this way: its 0.2.5 card stays open.
      const fake = await startFakeV025({ routes: { '/.well-known/agent-card.json': (_call, res) => json(res, status, { error: 'Unauthorized' }) } });
      open.push(fake);
      const error = await rejection(detectUpstreamProtocol(fake.url, config({ auth: { token: 'wrong' } })));
      // Callers read the gateway's words for an agent it cannot use; the operator's log, what to set (its cause).
      expect(error).toMatchObject({ code: ErrorCode.Internal, agentHttpStatus: status, message: 'Upstream agent is unavailable' });
      expect((error.cause as Error).message).toBe(
        `The upstream agent refused the credentials for its card at /.well-known/agent-card.json (HTTP ${status}); check upstream.auth, or for a 0.2.5 agent behind a front that answers so for paths it does not serve, set upstream.protocol: 0.2.5`,
      );
      expect(fake.calls.map((call) => call.path)).toEqual(['/.well-known/agent-card.json']);
    }
  });

  it('no readable card anywhere is an error', async () => {
    const fake = await startFakeV025({ card: null });
    open.push(fake);
    await expect(detectUpstreamProtocol(fake.url, config())).rejects.toThrow(/no agent card/);
  });
});

describe('connectUpstream', () => {
  it('a 0.2.5 agent gets the 0.2.5 client', async () => {
    const agent = await startSdkV025Agent();
    open.push(agent);
    const { logger, lines } = capturedLog('debug');
    const connected = await connectUpstream(agent.url, config(), logger);
    open.push(connected.upstream);
    expect(connected.protocol).toBe('0.2.5');
    expect(lines.find((line) => line.msg === 'upstream protocol')?.protocol).toBe('0.2.5');
    const answer = await connected.upstream.sendMessage(sendMessageParams('hi'), ctx());
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await connected.upstream.fetchCard()).name).toBe('sdk-v025-echo');
  });

  it('a 1.0 agent gets the 1.0 client', async () => {
    const fake = await startFakeIacCode();
    open.push(fake);
    const connected = await connectUpstream(fake.url, config(), createLogger('silent'));
    open.push(connected.upstream);
    expect(connected.protocol).toBe('1.0');
    expect((await connected.upstream.fetchCard()).name).toBe('iac-code');
  });

  it('an agent that is down at start: a warning, calls fail, and the first call after it is up detects it', async () => {
    let up = false;
    const fake = await startFakeV025({
      card: null,
      routes: {
        '/.well-known/agent.json': (_call, res) => (up ? json(res, 200, defaultCard(fake.url)) : json(res, 503, { error: 'starting' })),
      },
      rpc: {
        'tasks/get': (call, res) =>
          json(res, 200, { jsonrpc: '2.0', id: call.id, result: { kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } } }),
      },
    });
    open.push(fake);
    const { logger, lines } = capturedLog('debug');
    const connected = await connectUpstream(fake.url, config(), logger);
    open.push(connected.upstream);
    expect(connected.protocol).toBeUndefined();
    expect(lines.filter((line) => line.msg.includes('could not be detected'))[0]?.level).toBe(40);

    const error = await rejection(connected.upstream.getTask({ id: 't' }, ctx()));
    expect(error.code).toBe(ErrorCode.Internal);
    expect(lines.filter((line) => line.msg.includes('could not be detected')).map((line) => line.level)).toEqual([40, 20]);

    up = true;
    expect(await connected.upstream.getTask({ id: 't' }, ctx())).toMatchObject({ id: 't', status: { state: 'TASK_STATE_WORKING' } });
    expect(connected.protocol).toBe('0.2.5');
  });

  it('an agent that takes the connection and never answers: connecting waits waitMs, not headers-timeout-ms, and the detection goes on', async () => {
    const hung = await startHungServer();
    open.push(hung);
    const { logger, lines } = capturedLog('debug');
    const startedAt = Date.now();
    // headers-timeout-ms far from waitMs, so that a busy host cannot blur which one connecting waited for.
    const connected = await connectUpstream(hung.url, config({ 'headers-timeout-ms': 3_000 }), logger, { waitMs: 200 });
    open.push(connected.upstream);
    expect(Date.now() - startedAt).toBeLessThan(1_500);
    expect(connected.protocol).toBeUndefined();
    expect(lines.some((line) => line.msg.includes('has not answered yet'))).toBe(true);
    // Its connection taken (a loaded host's stall can end waitMs before this process has seen the accept).
    await waitUntil(async () => hung.accepted() > 0);
    expect(hung.accepted()).toBe(1);

    // A call waits for the detection in flight (within headers-timeout-ms), then fails as for a refused port:
    // not after a second detection's wait (6 s).
    const error = await rejection(connected.upstream.getTask({ id: 't' }, ctx()));
    expect(error.code).toBe(ErrorCode.Internal);
    expect(Date.now() - startedAt).toBeLessThan(3_000 + 1_500);
    expect(hung.accepted()).toBe(1);
    expect(lines.filter((line) => line.msg.includes('could not be detected'))[0]?.level).toBe(40);
  });

  it('close() ends a detection in flight instead of waiting out headers-timeout-ms', async () => {
    const hung = await startHungServer();
    open.push(hung);
    const { logger, lines } = capturedLog('debug');
    const connected = await connectUpstream(hung.url, config({ 'headers-timeout-ms': 30_000 }), logger, { waitMs: 100 });
    const pending = rejection(connected.upstream.getTask({ id: 't' }, ctx()));
    const closedAt = Date.now();
    await connected.upstream.close();
    // Not the 30 s headers-timeout-ms.
    expect(Date.now() - closedAt).toBeLessThan(5_000);
    expect((await pending).code).toBe(ErrorCode.Internal);
    // Closing is no failure of the agent's.
    expect(lines.some((line) => line.msg.includes('could not be detected'))).toBe(false);
  });

  it('startGateway does not fail when the upstream is down', async () => {
    const fake = await startFakeV025({ card: null });
    open.push(fake);
    const gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: fake.url } }), createLogger('silent'));
    open.push(gateway);
    const response = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } }),
    });
    const body = (await response.json()) as { error?: { code: number } };
    expect(body.error?.code).toBe(ErrorCode.Internal);
  });
});
