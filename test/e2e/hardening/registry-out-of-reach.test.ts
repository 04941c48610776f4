/**
 * A turn while the gateway's registry is out of reach (store: redis, its Redis refusing writes: out of
 * memory under noeviction, which lasts until a probe write is taken) is refused for now, before the agent
 * is asked, so that a caller knows to come back in a moment: HTTP 503 with `Retry-After` on JSON-RPC (the
 * error code and words of before, -32603) and HTTP+JSON (UNAVAILABLE), UNAVAILABLE on gRPC, and on the
 * 0.2.5 facade the same words in the turn's language (HTTP 200 like its every error, with the header).
 * A Redis that is gone is out of reach too (redis-outage.test.ts; the facade with such a registry:
 * test/surfaces/v025/registry-out-of-reach.test.ts). A redis-server of the test's own.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { status } from '@grpc/grpc-js';
import type { Transport } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES, STORE_RETRY_AFTER_SECONDS } from '../../../src/model/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { userMessage } from '../../support/facade.js';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { sendRequest } from '../../support/sdk-v1-client.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { waitUntil } from '../../support/wait-until.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

let redis: OwnRedis;
let admin: Redis;
let gateway: TestGateway;
let transport: Transport;

const readyStatus = async (): Promise<number> => (await fetch(`${gateway.url}/ready`)).status;

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  // A facade stream answers its failure as one SSE frame: its data is the body.
  const json = response.headers.get('content-type')?.startsWith('text/event-stream') ? /^data: (.*)$/m.exec(text)?.[1] : text;
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: JSON.parse(json ?? 'null') };
}

const rpc = (path: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  post(path, { jsonrpc: '2.0', id: 1, method, params }, headers);

const V1 = { 'a2a-version': '1.0' };
const RETRY_AFTER = String(STORE_RETRY_AFTER_SECONDS);
const REFUSAL = { code: -32603, message: GATEWAY_FAILURES.registryOutOfReach };

beforeAll(async () => {
  redis = await ownRedis();
  admin = new Redis(redis.url);
  gateway = await startTestGateway({
    store: 'redis',
    'redis-url': redis.url,
    'redis-prefix': `registry-out-of-reach-${randomBytes(4).toString('hex')}:`,
    'redis-command-timeout-ms': 1_000,
    grpc: { port: 0 },
  });
  transport = await grpcTransport(gateway);
  await waitUntil(async () => (await readyStatus()) === 200, 15_000);
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  await admin.config('SET', 'maxmemory', '1');
  // Reads still work, so this turn is answered; its task cannot be recorded, and from then on the registry is out of reach.
  await rpc('/', 'SendMessage', sendMessageParams('the write Redis refuses'), V1);
  await waitUntil(async () => (await readyStatus()) === 503, 15_000);
}, 60_000);
afterAll(async () => {
  admin?.disconnect();
  await gateway?.close();
  await redis?.stop();
});

describe('a turn while the registry is out of reach', () => {
  it('JSON-RPC: HTTP 503 with Retry-After, the error -32603 as before, on SendMessage and SendStreamingMessage', async () => {
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const answer = await rpc('/', method, sendMessageParams('hello'), V1);
      expect(answer, method).toEqual({ status: 503, retryAfter: RETRY_AFTER, body: { jsonrpc: '2.0', id: 1, error: REFUSAL } });
    }
  });

  it('HTTP+JSON: HTTP 503 with Retry-After, status UNAVAILABLE', async () => {
    for (const path of ['/message:send', '/message:stream']) {
      const answer = await post(path, sendMessageParams('hello'), V1);
      expect(answer, path).toEqual({
        status: 503,
        retryAfter: RETRY_AFTER,
        body: { error: { code: 503, status: 'UNAVAILABLE', message: REFUSAL.message, details: [] } },
      });
    }
  });

  it('gRPC: UNAVAILABLE', async () => {
    expect(await grpcFailureOf(transport.sendMessage(sendRequest('hello'), wire()))).toMatchObject({ status: status.UNAVAILABLE });
    expect(await grpcFailureOf(transport.sendMessageStream(sendRequest('hello'), wire()))).toMatchObject({ status: status.UNAVAILABLE });
  });

  it("0.2.5 facade: the same refusal in the turn's language, with Retry-After", async () => {
    for (const [path, method] of [
      ['/', 'message/send'],
      ['/stream', 'message/stream'],
    ] as const) {
      const chinese = await rpc(path, method, { message: userMessage({ text: '帮我部署一个网站' }) });
      expect(chinese, method).toMatchObject({
        retryAfter: RETRY_AFTER,
        body: { error: { code: -32603, message: '网关暂时无法记录任务，请稍后重试' } },
      });
      const english = await rpc(path, method, { message: userMessage({ text: 'Deploy a website for me' }) });
      expect(english, method).toMatchObject({ retryAfter: RETRY_AFTER, body: { error: REFUSAL } });
    }
  });
});

describe('a read while the registry does not answer', () => {
  it('GetTask and ListTasks are refused for now too: 503 with Retry-After, UNAVAILABLE on gRPC', async () => {
    redis.freeze();
    try {
      // Side by side: each waits out redis-command-timeout-ms on the frozen Redis.
      const reads = [
        ['GetTask', { id: 'a-task' }],
        ['ListTasks', {}],
      ] as const;
      const [answers, failure] = await Promise.all([
        Promise.all(reads.map(([method, params]) => rpc('/', method, params, V1))),
        grpcFailureOf(transport.getTask({ tenant: '', id: 'a-task', historyLength: undefined }, wire())),
      ]);
      reads.forEach(([method], index) =>
        expect(answers[index], method).toMatchObject({ status: 503, retryAfter: RETRY_AFTER, body: { error: REFUSAL } }),
      );
      expect(failure).toMatchObject({ status: status.UNAVAILABLE });
    } finally {
      redis.thaw();
    }
  });
});

describe('a facade task method while the registry does not answer', () => {
  // The push config methods read the same aliases first (this gateway has push off: they are -32003 before that).
  it('tasks/get, tasks/cancel and tasks/resubscribe: the same refusal for now, the log says what Redis did', async () => {
    redis.freeze();
    try {
      const calls = [
        ['/', 'tasks/get', { id: 'a-task' }],
        ['/', 'tasks/cancel', { id: 'a-task' }],
        ['/stream', 'tasks/resubscribe', { id: 'a-task' }],
      ] as const;
      const v1Reads = () => gateway.requestLog().filter((one) => one.method === 'GetTask').length;
      const v1ReadsBefore = v1Reads();
      // Side by side, a 1.0 read with them: each waits out redis-command-timeout-ms on the frozen Redis.
      const [answers] = await Promise.all([
        Promise.all(calls.map(([path, method, params]) => rpc(path, method, params))),
        rpc('/', 'GetTask', { id: 'a-task' }, V1),
      ]);
      calls.forEach(([, method], index) => {
        expect(answers[index], method).toEqual({ status: 200, retryAfter: RETRY_AFTER, body: { jsonrpc: '2.0', id: 1, error: REFUSAL } });
        const line = gateway.requestLog().findLast((one) => one.method === method);
        expect(line, method).toMatchObject({ errorCode: -32603, cause: 'Command timed out' });
      });
      // A 1.0 read's line says it too.
      expect(v1Reads()).toBe(v1ReadsBefore + 1);
      expect(gateway.requestLog().findLast((one) => one.method === 'GetTask')).toMatchObject({ cause: 'Command timed out' });
    } finally {
      redis.thaw();
    }
  });
});
