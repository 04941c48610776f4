/**
 * A caller's own task id whose alias in Redis holds a value the gateway never writes (another tool's value,
 * a bad restore): that is no alias, not a Redis out of reach. The caller is answered as for an id nobody holds
 * (tasks/get: -32001; a message opens a task under it), not told the gateway cannot record tasks (503);
 * the operator reads the key once in the log, never the value.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/model/index.js';
import { rpc, sentText, userMessage } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

const UNREADABLE = 'not-json{secret-looking-value-0123456789';

describe("facade on the Redis store, a caller's task id whose alias is unreadable", () => {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  let gateway: TestGateway;
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    gateway = await startTestGateway({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix });
  });
  afterAll(async () => {
    await gateway?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** A task opened under the caller's own id, then its alias's value replaced with one the gateway never writes; the alias's key. */
  async function spoiledAlias(): Promise<{ taskId: string; key: string }> {
    const taskId = `test-task-${randomUUID()}`;
    const first = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'one', taskId }) });
    expect(first.body.result).toMatchObject({ id: taskId, status: { state: 'completed' } });
    const [key, ...others] = await redis.keys(`${prefix}task-alias-own:*:${taskId}`);
    expect(key).toBeDefined();
    expect(others).toEqual([]);
    await redis.set(key as string, UNREADABLE, 'PX', 60_000);
    return { taskId, key: key as string };
  }

  const unreadableWarnings = (key: string) => gateway.log().filter((line) => line.level === 40 && line.key === key);

  it('tasks/get answers task not found (-32001), not 503; the log names the key once, without the value', async () => {
    const { taskId, key } = await spoiledAlias();
    for (let read = 0; read < 2; read++) {
      const got = await rpc(gateway.url, 'tasks/get', { id: taskId });
      expect(got.status).toBe(200);
      expect(got.body.error).toMatchObject({ code: ErrorCode.TaskNotFound });
      expect(got.body.error.message).not.toMatch(/record tasks|try again/i);
    }
    expect(unreadableWarnings(key)).toHaveLength(1);
    expect(JSON.stringify(gateway.log())).not.toContain(UNREADABLE);
  });

  it('a message naming that id opens a task under it, as an id nobody holds does', async () => {
    const { taskId } = await spoiledAlias();
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'again', taskId }) });
    expect(answer.body.error).toBeUndefined();
    expect(answer.body.result).toMatchObject({ id: taskId, status: { state: 'completed' } });
    expect(sentText(answer.body.result)).not.toBe('');
    // Bound anew: the id reads as the new task.
    const got = await rpc(gateway.url, 'tasks/get', { id: taskId });
    expect(got.body.result).toMatchObject({ id: taskId });
  });
});
