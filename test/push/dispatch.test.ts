import { afterEach, describe, expect, it } from 'vitest';
import { createPushHandler, deliver } from '../../src/push/dispatch.js';
import { pushAuthHeaders } from '../../src/push/headers.js';
import { newPushJob, type PushJob } from '../../src/push/queue/types.js';
import type { LookupFunction } from '../../src/push/url-policy.js';
import { startReceiver, type Receiver } from './fixtures/receiver.js';

const open = { allowPrivate: true, timeoutMs: 2_000 };
const receivers: Receiver[] = [];

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

function job(url: string, fields: Partial<PushJob> = {}): PushJob {
  return {
    ...newPushJob({
      eventId: 'evt-1',
      taskId: 'task-1',
      configId: 'cfg-1',
      owner: '',
      url,
      payload: JSON.stringify({ statusUpdate: { taskId: 'task-1', status: { state: 'TASK_STATE_COMPLETED' } } }),
    }),
    ...fields,
  };
}

describe('deliver', () => {
  it('POSTs the payload with the job headers and the auth headers', async () => {
    const target = await receiver();
    const auth = pushAuthHeaders({ url: target.url, token: 'tok-123', authentication: { scheme: 'basic', credentials: 'user:pass' } });
    const result = await deliver(job(`${target.url}/hook?x=1`, { headers: { 'X-Event-Id': 'evt-1' } }), { ...open, authHeaders: auth });

    expect(result).toEqual({ outcome: 'delivered', status: 200 });
    const [request] = target.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hook?x=1');
    expect(JSON.parse(request?.body ?? '')).toEqual({ statusUpdate: { taskId: 'task-1', status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-event-id']).toBe('evt-1');
    expect(request?.headers['x-a2a-notification-token']).toBe('tok-123');
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from('user:pass').toString('base64')}`);
  });

  it('sends Basic credentials already base64-encoded (RFC 7617) unchanged, and encodes user:pass', async () => {
    const target = await receiver();
    const encoded = Buffer.from('user:pass').toString('base64');
    for (const credentials of [encoded, 'user:pass']) {
      const auth = pushAuthHeaders({ url: target.url, authentication: { scheme: 'Basic', credentials } });
      await expect(deliver(job(`${target.url}/hook`), { ...open, authHeaders: auth })).resolves.toMatchObject({ outcome: 'delivered' });
    }
    const received = target.received.map((request) => request.headers.authorization);
    expect(received).toEqual([`Basic ${encoded}`, `Basic ${encoded}`]);
    // What the receiver reads back is the user and password, not their base64 once more.
    expect(received.map((header) => Buffer.from(String(header).slice('Basic '.length), 'base64').toString('utf8'))).toEqual([
      'user:pass',
      'user:pass',
    ]);
  });

  it('does not follow a redirect: the second receiver gets nothing and the result is a retry', async () => {
    const second = await receiver();
    const first = await receiver((_req, res) => {
      res.writeHead(302, { location: `${second.url}/stolen` });
      res.end();
    });
    const result = await deliver(job(`${first.url}/hook`), open);
    // A maintenance page's redirect during a deploy goes away: retried up to push-max-attempts, never followed.
    expect(result).toMatchObject({ outcome: 'retry', status: 302 });
    expect(first.received).toHaveLength(1);
    expect(second.received).toHaveLength(0);
  });

  it.each([
    ['token', { 'X-A2A-Notification-Token': 'abc\r\nX-Injected: 1' }],
    ['lf only', { Authorization: 'Bearer abc\nX-Injected: 1' }],
    ['nul', { Authorization: 'Bearer abc\u0000' }],
  ])('rejects control characters in header values (%s) before connecting', async (_name, authHeaders) => {
    const target = await receiver();
    const result = await deliver(job(`${target.url}/hook`), { ...open, authHeaders });
    expect(result.outcome).toBe('permanent');
    expect(result.error).toMatch(/control characters/);
    expect(target.received).toHaveLength(0);
  });

  it.each([
    [503, 'retry'],
    [429, 'retry'],
    [408, 'retry'],
    // An ingress during the receiver's deploy, or a receiver being fixed: not final.
    [404, 'retry'],
    [400, 'retry'],
    [401, 'retry'],
    [403, 'retry'],
    [301, 'retry'],
    [501, 'retry'],
    // No retry of the same request can change these.
    [410, 'permanent'],
    [413, 'permanent'],
    [414, 'permanent'],
    [431, 'permanent'],
    [201, 'delivered'],
  ] as const)('classifies HTTP %i as %s', async (status, outcome) => {
    const target = await receiver((_req, res) => {
      res.statusCode = status;
      res.end();
    });
    await expect(deliver(job(`${target.url}/hook`), open)).resolves.toMatchObject({ outcome, status });
  });

  it('retries on connection errors and timeouts', async () => {
    const closed = await receiver();
    const url = closed.url;
    await closed.close();
    receivers.splice(receivers.indexOf(closed), 1);
    await expect(deliver(job(`${url}/hook`), open)).resolves.toMatchObject({ outcome: 'retry' });

    const slow = await receiver(() => undefined); // never answers
    const started = Date.now();
    await expect(deliver(job(`${slow.url}/hook`), { ...open, timeoutMs: 150 })).resolves.toEqual({
      outcome: 'retry',
      error: 'delivery timed out',
      // The request went out: the stale-state check counts it as sent (stale-notifications.ts).
      mayHaveArrived: true,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('rejects a private callback at dispatch time when private targets are not allowed', async () => {
    const target = await receiver();
    await expect(deliver(job(`${target.url}/hook`), { ...open, allowPrivate: false })).resolves.toMatchObject({
      outcome: 'permanent',
      error: 'A2A push callback URL must not target private or local hosts',
    });
    expect(target.received).toHaveLength(0);
  });

  it('connects to the pinned address while keeping the original Host header', async () => {
    const target = await receiver();
    let lookups = 0;
    // A rebinding resolver: the first answer is the one checked and pinned; later answers must not matter.
    const lookup: LookupFunction = async () => {
      lookups += 1;
      return [{ address: lookups === 1 ? '127.0.0.1' : '192.0.2.1', family: 4 }];
    };
    const result = await deliver(job(`http://hooks.receiver.example:${target.port}/hook`), { ...open, lookup });
    expect(result.outcome).toBe('delivered');
    expect(lookups).toBe(1);
    expect(target.received[0]?.headers.host).toBe(`hooks.receiver.example:${target.port}`);
  });

  it('refuses a name resolving to a private address, and retries when DNS fails', async () => {
    const target = await receiver();
    const privateLookup: LookupFunction = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(
      deliver(job(`http://hooks.receiver.example:${target.port}/`), { ...open, allowPrivate: false, lookup: privateLookup }),
    ).resolves.toMatchObject({ outcome: 'permanent', error: 'A2A push callback URL must not resolve to private or local hosts' });
    const failing: LookupFunction = async () => {
      throw new Error('EAI_AGAIN');
    };
    await expect(deliver(job('http://hooks.receiver.example/'), { ...open, allowPrivate: false, lookup: failing })).resolves.toMatchObject({
      outcome: 'retry',
    });
    expect(target.received).toHaveLength(0);
  });
});

describe('createPushHandler', () => {
  it('resolves auth headers at dispatch and skips jobs whose config is gone', async () => {
    const target = await receiver();
    const handler = createPushHandler({
      ...open,
      resolveHeaders: async (j) => (j.configId === 'gone' ? null : { Authorization: 'Bearer fresh' }),
    });
    await expect(handler(job(`${target.url}/hook`))).resolves.toMatchObject({ outcome: 'delivered' });
    expect(target.received[0]?.headers.authorization).toBe('Bearer fresh');
    await expect(handler(job(`${target.url}/hook`, { configId: 'gone' }))).resolves.toMatchObject({ outcome: 'skipped' });
    expect(target.received).toHaveLength(1);
  });
});
