/**
 * Push configs whose URL, token or credentials carry control characters, spaces or non-ASCII are
 * refused when they are created, on every path a config can take: 1.0
 * CreateTaskPushNotificationConfig (JSON-RPC -32602, HTTP+JSON 400), the facade's
 * tasks/pushNotificationConfig/set (-32602) and a config inline in a message (both surfaces). Nothing
 * is stored, so nothing is echoed or ever reaches a header.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
const V025 = { 'content-type': 'application/json' };
const GOOD_URL = 'https://hooks.example.com/cb';

/** Field values refused at create time, each with the field it goes in. */
const BAD: Array<{ name: string; url?: string; token?: string; credentials?: string }> = [
  { name: 'CR/LF in the URL', url: `${GOOD_URL}\r\nX-Injected: 1` },
  { name: 'LF in the URL', url: `${GOOD_URL}\nx` },
  { name: 'a tab in the URL', url: `${GOOD_URL}\tx` },
  { name: 'a space in the URL', url: `${GOOD_URL}/a b` },
  { name: 'NUL in the URL', url: `${GOOD_URL}\u0000` },
  { name: 'non-ASCII in the URL', url: 'https://hooks.example.com/caf\u00e9' },
  { name: 'an IDN host', url: 'https://b\u00fccher.example/cb' },
  { name: 'CR/LF in the token', token: 'tok\r\nX-Injected: 1' },
  { name: 'a space in the token', token: 'tok en' },
  { name: 'a tab in the token', token: 'tok\ten' },
  { name: 'non-ASCII in the token', token: 't\u00f6ken' },
  { name: 'CR/LF in the credentials', credentials: 'cred\r\nX-Injected: 1' },
  { name: 'a space in the credentials', credentials: 'cr ed' },
  { name: 'DEL in the credentials', credentials: 'cred\u007f' },
  { name: 'non-ASCII in the credentials', credentials: 'cr\u00e9d' },
];

let dir: string;
let gateway: TestGateway;

async function rpc(method: string, params: unknown, headers: Record<string, string>): Promise<any> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const v1Message = () => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'push me' }] });
const v025Message = () => ({ kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'push me' }] });

function v1Config(bad: (typeof BAD)[number]) {
  return {
    url: bad.url ?? GOOD_URL,
    ...(bad.token ? { token: bad.token } : {}),
    ...(bad.credentials ? { authentication: { scheme: 'Bearer', credentials: bad.credentials } } : {}),
  };
}
function v025Config(bad: (typeof BAD)[number]) {
  return {
    url: bad.url ?? GOOD_URL,
    ...(bad.token ? { token: bad.token } : {}),
    ...(bad.credentials ? { authentication: { schemes: ['Bearer'], credentials: bad.credentials } } : {}),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-push-input-'));
  gateway = await startDemoGateway({ 'push-notifications': true, 'persistence-dir': dir });
});
afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

describe.each(BAD)('$name', (bad) => {
  it('is -32602 from 1.0 CreateTaskPushNotificationConfig (JSON-RPC) and 400 on HTTP+JSON; nothing is stored', async () => {
    const taskId = (await rpc('SendMessage', { message: v1Message() }, V1)).result.task.id as string;
    const created = await rpc('CreateTaskPushNotificationConfig', { taskId, ...v1Config(bad) }, V1);
    expect(created.error?.code, JSON.stringify(created)).toBe(-32602);
    const rest = await fetch(`${gateway.url}/tasks/${taskId}/pushNotificationConfigs`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify(v1Config(bad)),
      signal: AbortSignal.timeout(5_000),
    });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId }, V1)).result).toEqual({ configs: [] });
  });

  it('is -32602 from the facade tasks/pushNotificationConfig/set; nothing is stored', async () => {
    const taskId = (await rpc('message/send', { message: v025Message() }, V025)).result.id as string;
    const set = await rpc('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: v025Config(bad) }, V025);
    expect(set.error?.code, JSON.stringify(set)).toBe(-32602);
    expect((await rpc('tasks/pushNotificationConfig/list', { id: taskId }, V025)).result).toEqual([]);
  });

  it('is -32602 inline in a 1.0 SendMessage and in a facade message/send, before any task exists', async () => {
    const v1 = await rpc('SendMessage', { message: v1Message(), configuration: { taskPushNotificationConfig: v1Config(bad) } }, V1);
    expect(v1.error?.code, JSON.stringify(v1)).toBe(-32602);
    const v025 = await rpc('message/send', { message: v025Message(), configuration: { pushNotificationConfig: v025Config(bad) } }, V025);
    expect(v025.error?.code, JSON.stringify(v025)).toBe(-32602);
  });
});

it('a clean config on the same paths is stored', async () => {
  const taskId = (await rpc('SendMessage', { message: v1Message() }, V1)).result.task.id as string;
  const created = await rpc(
    'CreateTaskPushNotificationConfig',
    { taskId, url: GOOD_URL, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'abc.DEF-_~+/=' } },
    V1,
  );
  expect(created.result).toMatchObject({ taskId, url: GOOD_URL });
});
