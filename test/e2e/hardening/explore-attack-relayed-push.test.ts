/**
 * Push configs through the facade that relays a 0.2.5 agent as it is (the `a2a-0.2.5` profile, passthrough.ts).
 * There the agent, not the gateway, keeps the configs and pushes from its own network, so a config a caller
 * sends must pass the gateway's rules before it reaches the agent:
 * - with `push-notifications: true`, the callback URL rules the gateway keeps for its own configs (README, Push
 *   notifications: no loopback, private, link-local or metadata address in any spelling, header-safe secrets),
 *   for `tasks/pushNotificationConfig/set` and a config inline in `message/send`: -32602, and nothing reaches
 *   the agent. Before, both were relayed as they came, and a caller could have the agent call
 *   `http://169.254.169.254/` or a port on its own loopback;
 * - with it off, a config inline in a message never reaches the agent (the core takes it off the same way:
 *   `withoutInlineConfig`), as the push methods are refused -32003 before they are relayed. Before, the agent
 *   got it, and pushed though the gateway said it does not.
 * A real a2a-js 0.2.5 agent that supports push, behind a proxy that records what reaches it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';
import { startSdkV025Agent, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { startRecordingProxy, type RecordingProxy } from '../facade/recording-proxy.js';

const FACADE = { 'content-type': 'application/json', 'x-api-key': API_KEY };
const PRIVATE_URLS = [
  'http://127.0.0.1:8080/admin',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:127.0.0.1]/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://localhost/',
  'http://metadata.google.internal/',
  'file:///etc/passwd',
];
const PUBLIC_URL = 'https://hooks.example.com/a2a';

let agent: RunningSdkV025Agent;
let proxy: RecordingProxy;
let dir: string;

beforeAll(async () => {
  agent = await startSdkV025Agent({ pushNotifications: true });
  proxy = await startRecordingProxy(agent.url);
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-relayed-push-'));
});
afterAll(async () => {
  await proxy?.close();
  await agent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function rpc(gateway: RunningGateway, method: string, params: unknown): Promise<any> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: FACADE,
    body: JSON.stringify({ jsonrpc: '2.0', id: 'push-1', method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  return response.json();
}

/** What the agent was sent of `method` since `before` exchanges: the params of each request. */
const relayed = (before: number, method: string): any[] =>
  proxy.exchanges
    .slice(before)
    .filter((exchange) => exchange.rpcMethod === method)
    .map((exchange) => JSON.parse(exchange.body).params);

const inline = (url: string) => ({
  message: userMessage({ text: 'hi' }),
  configuration: { blocking: true, pushNotificationConfig: { url, token: 'tok' } },
});

describe('push on: relayed configs follow the callback URL rules', () => {
  let gateway: RunningGateway;
  let taskId: string;

  beforeAll(async () => {
    gateway = await startRelayingFacadeGateway({
      upstream: { url: proxy.url },
      bailian: { 'api-key': API_KEY },
      'push-notifications': true,
      'persistence-dir': dir,
    });
    taskId = (await rpc(gateway, 'message/send', { message: userMessage({ text: 'a task' }), configuration: { blocking: true } })).result.id;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(PRIVATE_URLS)('tasks/pushNotificationConfig/set to %s: -32602, not relayed', async (url) => {
    const before = proxy.exchanges.length;
    const answer = await rpc(gateway, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url } });
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/push callback URL/) });
    expect(relayed(before, 'tasks/pushNotificationConfig/set')).toEqual([]);
  });

  it.each(PRIVATE_URLS)('message/send with a config to %s: -32602, no turn', async (url) => {
    const before = proxy.exchanges.length;
    const answer = await rpc(gateway, 'message/send', inline(url));
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/push callback URL/) });
    expect(relayed(before, 'message/send')).toEqual([]);
  });

  it('a token that would split a header is refused as the gateway refuses it for its own configs', async () => {
    const before = proxy.exchanges.length;
    const answer = await rpc(gateway, 'tasks/pushNotificationConfig/set', {
      taskId,
      pushNotificationConfig: { url: PUBLIC_URL, token: 'a\r\nX-Injected: 1' },
    });
    expect(answer.error).toMatchObject({ code: -32602 });
    expect(relayed(before, 'tasks/pushNotificationConfig/set')).toEqual([]);
  });

  it('a public callback is relayed as the caller wrote it, on both paths', async () => {
    const before = proxy.exchanges.length;
    const set = await rpc(gateway, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url: PUBLIC_URL, token: 'tok' } });
    expect(set.result).toMatchObject({ taskId, pushNotificationConfig: { url: PUBLIC_URL } });
    expect(relayed(before, 'tasks/pushNotificationConfig/set')).toEqual([{ taskId, pushNotificationConfig: { url: PUBLIC_URL, token: 'tok' } }]);
    const sent = await rpc(gateway, 'message/send', inline(PUBLIC_URL));
    expect(sent.result).toMatchObject({ kind: 'task' });
    expect(relayed(before, 'message/send')).toMatchObject([{ configuration: { pushNotificationConfig: { url: PUBLIC_URL, token: 'tok' } } }]);
  });
});

describe('push off: a config inline in a relayed message never reaches the agent', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startRelayingFacadeGateway({ upstream: { url: proxy.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('the turn runs, relayed without the config; the rest of its configuration goes on', async () => {
    const before = proxy.exchanges.length;
    const sent = await rpc(gateway, 'message/send', inline(PUBLIC_URL));
    expect(sent.result).toMatchObject({ kind: 'task' });
    const [params] = relayed(before, 'message/send');
    expect(params.configuration).toEqual({ blocking: true });
    expect(JSON.stringify(params)).not.toContain(PUBLIC_URL);
  });

  it('so is one to a private address: the agent is not told of it', async () => {
    const before = proxy.exchanges.length;
    expect((await rpc(gateway, 'message/send', inline(PRIVATE_URLS[1]!))).result).toMatchObject({ kind: 'task' });
    expect(JSON.stringify(relayed(before, 'message/send'))).not.toContain('169.254');
  });
});
