/**
 * Principals cannot collide: a task belongs to the credential that created it AND the surface it came
 * through. Every pair of callers (1.0 bearer, 1.0 Basic, 1.0 API key in any header, each of several
 * listed tokens and keys, each of the facade's keys, named ones sharing a client name across lists,
 * and the anonymous callers of both surfaces) is checked against each other's tasks with GetTask,
 * ListTasks, CancelTask (-32001, never the -32002 that would reveal the task) and the facade's
 * tasks/get, on the memory and the Redis store. Header names play no part: the 1.0 key may even travel
 * in the facade's own `X-API-KEY` header with the facade's own value.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, beforeAll } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

interface Caller {
  name: string;
  surface: '1.0' | '0.2.5';
  headers: Record<string, string>;
}

interface Setup {
  name: string;
  config: Record<string, unknown>;
  callers: Caller[];
}

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };

function setups(): Setup[] {
  const withHeader = (header: string): Setup => ({
    name: `every scheme, 1.0 key in ${header}`,
    config: {
      auth: { token: 'tok-1', 'basic-username': 'alice', 'basic-password': 'pw-1', 'api-key': 'key-1', 'api-key-header': header },
      bailian: { 'api-key': 'key-2' },
    },
    callers: [
      { name: 'bearer', surface: '1.0', headers: { ...V1, authorization: 'Bearer tok-1' } },
      { name: 'basic', surface: '1.0', headers: { ...V1, authorization: basic('alice', 'pw-1') } },
      { name: 'api-key', surface: '1.0', headers: { ...V1, [header]: 'key-1' } },
      { name: 'facade', surface: '0.2.5', headers: { 'content-type': 'application/json', 'x-api-key': 'key-2' } },
    ],
  });
  return [
    withHeader('X-API-KEY'),
    withHeader('X-Custom-Key'),
    {
      name: 'one key value on both surfaces, same header',
      config: { auth: { 'api-key': 'shared-key', 'api-key-header': 'X-API-KEY' }, bailian: { 'api-key': 'shared-key' } },
      callers: [
        { name: 'api-key', surface: '1.0', headers: { ...V1, 'x-api-key': 'shared-key' } },
        { name: 'facade', surface: '0.2.5', headers: { 'content-type': 'application/json', 'x-api-key': 'shared-key' } },
      ],
    },
    {
      name: 'several tokens and API keys (auth.tokens, auth.api-keys): one principal each',
      config: { auth: { token: 'tok-0', tokens: ['tok-1', 'tok-2'], 'api-keys': ['key-1', 'key-2'] } },
      callers: [
        { name: 'token', surface: '1.0', headers: { ...V1, authorization: 'Bearer tok-0' } },
        { name: 'listed token 1', surface: '1.0', headers: { ...V1, authorization: 'Bearer tok-1' } },
        { name: 'listed token 2', surface: '1.0', headers: { ...V1, authorization: 'Bearer tok-2' } },
        { name: 'listed key 1', surface: '1.0', headers: { ...V1, 'x-api-key': 'key-1' } },
        { name: 'listed key 2', surface: '1.0', headers: { ...V1, 'x-api-key': 'key-2' } },
      ],
    },
    {
      name: 'several facade keys (bailian.api-keys): one principal each',
      config: { bailian: { 'api-key': 'bailian-0', 'api-keys': ['bailian-1', 'bailian-2'] } },
      callers: [
        { name: 'facade key', surface: '0.2.5', headers: { 'content-type': 'application/json', 'x-api-key': 'bailian-0' } },
        { name: 'listed facade key 1', surface: '0.2.5', headers: { 'content-type': 'application/json', 'x-api-key': 'bailian-1' } },
        { name: 'listed facade key 2', surface: '0.2.5', headers: { 'content-type': 'application/json', 'x-api-key': 'bailian-2' } },
      ],
    },
    {
      name: 'named tokens, API keys and facade keys, one name in every list: the name plays no part',
      config: {
        auth: {
          tokens: [
            { name: 'acme', token: 'tok-a' },
            { name: 'beta', token: 'tok-b' },
          ],
          'api-keys': [{ name: 'acme', key: 'key-a' }],
        },
        bailian: {
          'api-keys': [
            { name: 'acme', key: 'bk-a' },
            { name: 'beta', key: 'bk-b' },
          ],
        },
      },
      callers: [
        { name: 'token named acme', surface: '1.0', headers: { ...V1, authorization: 'Bearer tok-a' } },
        { name: 'token named beta', surface: '1.0', headers: { ...V1, authorization: 'Bearer tok-b' } },
        { name: 'API key named acme', surface: '1.0', headers: { ...V1, 'x-api-key': 'key-a' } },
        { name: 'facade key named acme', surface: '0.2.5', headers: { 'content-type': 'application/json', 'x-api-key': 'bk-a' } },
        { name: 'facade key named beta', surface: '0.2.5', headers: { 'content-type': 'application/json', 'x-api-key': 'bk-b' } },
      ],
    },
    {
      name: 'no credentials anywhere',
      config: {},
      callers: [
        { name: 'anonymous 1.0', surface: '1.0', headers: V1 },
        { name: 'anonymous facade', surface: '0.2.5', headers: { 'content-type': 'application/json' } },
      ],
    },
  ];
}

async function rpc(url: string, caller: Caller, method: string, params: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: caller.headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  expect(response.status).toBe(200);
  return response.json();
}

interface Created {
  taskId: string;
  contextId: string;
}

/** One blocking turn (in `contextId` when given); the task and context it ran in, or the error code. */
async function send(url: string, caller: Caller, contextId?: string): Promise<Created | number> {
  if (caller.surface === '1.0') {
    const answer = await rpc(url, caller, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `hello from ${caller.name}` }], ...(contextId ? { contextId } : {}) },
    });
    if (answer.error) return answer.error.code as number;
    return { taskId: answer.result.task.id, contextId: answer.result.task.contextId };
  }
  const answer = await rpc(url, caller, 'message/send', {
    message: {
      kind: 'message',
      role: 'user',
      messageId: randomUUID(),
      parts: [{ kind: 'text', text: `hello from ${caller.name}` }],
      ...(contextId ? { contextId } : {}),
    },
  });
  if (answer.error) return answer.error.code as number;
  return { taskId: answer.result.id, contextId: answer.result.contextId };
}

async function createTask(url: string, caller: Caller): Promise<Created> {
  const created = await send(url, caller);
  expect(created, `${caller.name} creating a task`).toMatchObject({ taskId: expect.any(String), contextId: expect.any(String) });
  return created as Created;
}

/** What `caller` learns about task `id`: 'visible' or the error code it got. */
async function probe(url: string, caller: Caller, id: string): Promise<Array<string | number>> {
  if (caller.surface === '0.2.5') {
    const got = await rpc(url, caller, 'tasks/get', { id });
    const cancel = await rpc(url, caller, 'tasks/cancel', { id });
    return [got.error?.code ?? 'visible', cancel.error?.code ?? 'canceled'];
  }
  const got = await rpc(url, caller, 'GetTask', { id });
  const cancel = await rpc(url, caller, 'CancelTask', { id });
  const rest = await fetch(`${url}/tasks/${encodeURIComponent(id)}`, { headers: caller.headers, signal: AbortSignal.timeout(5_000) });
  await rest.body?.cancel();
  const listed = await rpc(url, caller, 'ListTasks', { pageSize: 100 });
  const ids = (listed.result?.tasks ?? []).map((task: { id: string }) => task.id);
  return [got.error?.code ?? 'visible', cancel.error?.code ?? 'canceled', rest.status, ids.includes(id) ? 'listed' : 'unlisted'];
}

const FOREIGN_1_0 = [-32001, -32001, 404, 'unlisted'];
const FOREIGN_0_2_5 = [-32001, -32001];

const RUN = `a2a-bridge-test:principals:${randomUUID()}:`;
const STORES = [
  { store: 'memory', extra: {} },
  { store: 'redis', extra: { 'redis-url': REDIS_URL } },
] as const;

afterAll(async () => {
  await deleteRedisKeys(RUN);
});

describe.each(STORES)('principals on the $store store', ({ store, extra }) => {
  const gateways: TestGateway[] = [];
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
  });

  it.each(setups())(
    "$name: no caller sees, lists, probes or continues another caller's task",
    async ({ config, callers }) => {
      const gateway = await startDemoGateway({ ...config, ...extra, store, 'redis-prefix': `${RUN}${randomUUID()}:` });
      gateways.push(gateway);
      const owned = new Map<string, Created>();
      for (const caller of callers) owned.set(caller.name, await createTask(gateway.url, caller));

      for (const owner of callers) {
        const { taskId, contextId } = owned.get(owner.name)!;
        // The owner itself sees its task: the probe can tell visible from foreign.
        const own = await probe(gateway.url, owner, taskId);
        expect(own[0], `${owner.name} reading its own task`).toBe('visible');
        for (const other of callers) {
          if (other === owner) continue;
          const seen = await probe(gateway.url, other, taskId);
          expect(seen, `${other.name} probing the task of ${owner.name}`).toEqual(other.surface === '1.0' ? FOREIGN_1_0 : FOREIGN_0_2_5);
          // Another caller cannot continue the owner's conversation: refused, never a turn in the owner's task.
          const continued = await send(gateway.url, other, contextId);
          expect(continued, `${other.name} continuing the context of ${owner.name}`).toBe(-32602);
        }
      }
    },
    30_000,
  );
});
