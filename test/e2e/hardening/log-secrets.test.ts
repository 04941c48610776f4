/**
 * What an operator reads in the log carries no credential of the gateway's own configuration: a Redis
 * that comes to refuse the configured password (its password changed under a running gateway; ioredis
 * puts the refused AUTH's arguments, the password, on the error every Redis client of the gateway logs), and URLs written with their credentials
 * (`upstream.url`, `tracing.otlp-endpoint`). The callers' answers carry none either.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoAgent, type RunningDemoAgent } from '../../../src/demo-agent/index.js';
import { startTestGateway } from '../../support/gateway.js';
import { startPasswordRedis, type PasswordRedis } from '../../support/password-redis.js';
import { waitUntil } from '../../support/wait-until.js';
import { exchange, expectNoLeak } from './support.js';

const REDIS_PASSWORD = 'configured-redis-password-51c0';
const URL_SECRETS = ['upstream-url-password-7e2d', 'upstream-url-key-90af', 'otlp-url-password-c4b1'];
const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const getTask = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'some-task' } });

function logText(lines: unknown[]): string {
  return lines.map((line) => JSON.stringify(line)).join('\n');
}

describe('a Redis that comes to refuse the configured password', () => {
  let server: PasswordRedis;

  beforeAll(async () => {
    server = await startPasswordRedis(REDIS_PASSWORD);
  });
  afterAll(() => server.stop());

  it('logs what went wrong, never the password, and answers without it', async () => {
    const gateway = await startTestGateway({
      store: 'redis',
      'redis-url': server.url(REDIS_PASSWORD),
      'redis-prefix': `log-secrets-${process.pid}:`,
      'push-notifications': true,
      'push-queue': 'redis-streams',
    });
    try {
      await server.changePassword(REDIS_PASSWORD, 'another-password');
      const answer = await exchange(`${gateway.url}/`, { method: 'POST', headers: V1, body: getTask });
      expect(answer.text).not.toContain(REDIS_PASSWORD);
      expectNoLeak(answer.text, getTask);
      const ready = await exchange(`${gateway.url}/ready`);
      expect(ready.status).toBe(503);
      expect(ready.text).not.toContain(REDIS_PASSWORD);
      await waitUntil(async () => logText(gateway.log()).includes('WRONGPASS'));
      await sleep(200);
    } finally {
      await gateway.close();
    }
    const log = logText(gateway.log());
    expect(log).toContain('WRONGPASS');
    expect(log).not.toContain(REDIS_PASSWORD);
  });
});

describe('URLs configured with their credentials', () => {
  let agent: RunningDemoAgent;
  // A collector that takes every export: one that does not answer holds the gateway's stop for seconds.
  let collector: Server;
  beforeAll(async () => {
    agent = await startDemoAgent();
    collector = createServer((request, response) => void request.resume().on('end', () => response.end()));
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await agent.close();
    await new Promise((resolve) => collector.close(resolve));
  });

  // upstream.url takes no query (refused at start), the OTLP endpoint may carry one.
  it('are logged without them', async () => {
    const upstream = new URL(agent.url);
    upstream.username = 'operator';
    upstream.password = URL_SECRETS[0]!;
    const gateway = await startTestGateway({
      upstream: { url: upstream.toString() },
      tracing: {
        'otlp-endpoint': `http://otel:${URL_SECRETS[2]}@127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces?api_key=${URL_SECRETS[1]}`,
      },
    });
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { role: 'ROLE_USER', messageId: 'm-1', parts: [{ text: 'hi' }] } },
      });
      const answer = await exchange(`${gateway.url}/`, { method: 'POST', headers: V1, body });
      for (const secret of URL_SECRETS) expect(answer.text).not.toContain(secret);
      await waitUntil(async () => logText(gateway.log()).includes('upstream'));
    } finally {
      await gateway.close();
    }
    const log = logText(gateway.log());
    expect(log).toContain('exporting traces over OTLP/HTTP');
    for (const secret of URL_SECRETS) expect(log).not.toContain(secret);
  });
});
