/**
 * `store: redis` through a crash of the real CLI (`a2a-bridge serve`, SIGKILL) in front of a real a2a-js 1.x
 * agent that asks a question: the gateway started again on the same Redis prefix answers, under the same
 * credential, what the one killed recorded. A Bailian user's next message in the same contextId (no taskId,
 * as Bailian sends it) answers the question in the same task; a 1.0 caller's GetTask and ListTasks find its
 * task; another caller finds neither.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { serveCli } from '../../support/run-cli.js';
import { bookedReply, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { sentText } from '../../support/facade.js';
import { API_KEY, TOKEN } from './support.js';

const RUN = `test-crash-registry-${process.pid}-${randomUUID().slice(0, 8)}:`;
const OTHER_TOKEN = 'crash-registry-other-token-3e9b1f';

let agent: RunningScriptedAgent;
let dir: string;
let restarted: TestGateway | undefined;
const children: ChildProcess[] = [];

beforeAll(requireRedis);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-crash-registry-'));
  agent = await startScriptedAgent();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await restarted?.close();
  await agent?.close();
  await deleteRedisKeys(RUN);
  await rm(dir, { recursive: true, force: true });
});

async function call(url: string, method: string, params: unknown, headers: Record<string, string>): Promise<{ result?: any; error?: any }> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: any };
}
const bailian = (url: string, method: string, params: unknown) => call(url, method, params, { 'x-api-key': API_KEY });
const v1 = (url: string, method: string, params: unknown, token = TOKEN) =>
  call(url, method, params, { 'a2a-version': '1.0', authorization: `Bearer ${token}` });
const v025Message = (text: string, contextId: string) => ({
  message: { kind: 'message', role: 'user', messageId: randomUUID(), contextId, parts: [{ kind: 'text', text }] },
});

describe('store: redis, the gateway killed (SIGKILL) between two turns of a conversation', () => {
  it('started again on the same Redis, it goes on with what the one killed recorded, for the same caller only', async () => {
    const settings = {
      upstream: { url: agent.url },
      store: 'redis',
      'redis-url': REDIS_URL,
      'redis-prefix': RUN,
      auth: { tokens: [TOKEN, OTHER_TOKEN] },
      bailian: { 'api-keys': [API_KEY] },
    };
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, JSON.stringify({ ...settings, port: 0 }));
    const first = await serveCli(['--config', file], { track: children });

    const contextId = `crash-${randomUUID()}`;
    const asked = await bailian(first.url, 'message/send', v025Message('book a flight to Paris', contextId));
    expect(asked.result?.status?.state).toBe('input-required');
    const v1Task = (await v1(first.url, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'book a trip' }] } }))
      .result?.task;
    expect(v1Task?.status?.state).toBe('TASK_STATE_INPUT_REQUIRED');
    first.child.kill('SIGKILL');
    await first.exited;

    restarted = await startTestGateway(settings);
    const answered = await bailian(restarted.url, 'message/send', v025Message('tomorrow', contextId));
    expect(answered.error).toBeUndefined();
    expect(answered.result?.id).toBe(asked.result.id);
    expect(answered.result?.status?.state).toBe('completed');
    expect(sentText(answered.result)).toBe(bookedReply('tomorrow').join(''));
    expect((await bailian(restarted.url, 'tasks/get', { id: asked.result.id })).result?.status?.state).toBe('completed');

    const got = await v1(restarted.url, 'GetTask', { id: v1Task.id });
    expect(got.result?.status?.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const listed = await v1(restarted.url, 'ListTasks', {});
    expect((listed.result?.tasks ?? []).map((task: { id: string }) => task.id)).toContain(v1Task.id);
    expect((await v1(restarted.url, 'GetTask', { id: v1Task.id }, OTHER_TOKEN)).error?.code).toBe(-32001);
    const othersList = await v1(restarted.url, 'ListTasks', {}, OTHER_TOKEN);
    expect((othersList.result?.tasks ?? []).map((task: { id: string }) => task.id)).not.toContain(v1Task.id);
  }, 30_000);
});
