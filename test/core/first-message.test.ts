/**
 * The opening message a blocking answer (SendMessage, GetTask) carries first, as recorded (first-message.ts),
 * once the record is bounded by `tasks.history-limit`: the record's first message is the task's opening one
 * only while the record was never cut at its front. Past the limit it is whatever the window starts with (a
 * follow-up an a2a-js 0.2.5 agent never stores), which put first stood before the task's own opening message.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import type { Message, Task } from '../../src/model/index.js';
import { ctxOf, stubUpstream } from '../support/gateway-stubs.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

const ALICE = ctxOf('basic:alice');
const META = { owner: ALICE.principal, upstream: 'up', tenant: '' };
const LIMIT = 4;
const RUN_PREFIX = `a2a-bridge-test:first-message:${randomUUID()}:`;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

afterAll(async () => {
  const admin = new Redis(REDIS_URL);
  const keys = await admin.keys(`${RUN_PREFIX}*`).catch(() => []);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

const STORES: Array<{ name: string; create(): Promise<TaskRegistry> }> = [
  { name: 'memory', create: async () => createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 60_000, historyLimit: LIMIT }) },
  {
    name: 'redis',
    async create() {
      await requireRedis();
      const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix: `${RUN_PREFIX}${randomUUID()}:`, idleTtlMs: 60_000, historyLimit: LIMIT });
      closers.push(() => registry.close());
      return registry;
    },
  },
];

const said = (role: 'ROLE_USER' | 'ROLE_AGENT', text: string): Message => ({
  messageId: `${role}-${text}`,
  role,
  taskId: 'T',
  contextId: 'C',
  parts: [{ text }],
});
const q = (n: number) => said('ROLE_USER', `q${n}`);
const r = (n: number) => said('ROLE_AGENT', `r${n}`);
const task = (history: Message[]): Task => ({ id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, history });
const texts = (answer: Task): string[] => (answer.history ?? []).map((message) => message.parts[0]?.text ?? '');

describe.each(STORES)('the opening message of a blocking answer, $name store', (store) => {
  it('GetTask: a record cut at its front by the limit starts at a follow-up, which is not put first', async () => {
    const registry = await store.create();
    // Three turns recorded; the record keeps its last 4 messages, from the follow-up q2 on.
    await registry.put(task([q(1), r(1), q(2), r(2), q(3), r(3)]), META);
    expect(texts((await registry.get('T', ALICE.principal))!)).toEqual(['q2', 'r2', 'q3', 'r3']);
    // An a2a-js 0.2.5 agent: the opening message and its own, never a follow-up.
    const agent = stubUpstream({ getTask: async () => task([q(1), r(1), r(2), r(3)]) });
    const gateway = createGateway(agent, { registry, upstreamName: 'up' });

    const answer = await gateway.getTask({ tenant: '', id: 'T' }, ALICE);

    expect(texts(answer)).toEqual(['q1', 'r1', 'r2', 'q3', 'r3']);
  });

  it('SendMessage: a follow-up on a record cut at its front is answered without a follow-up put first', async () => {
    const registry = await store.create();
    await registry.put(task([q(1), r(1), q(2), r(2), q(3), r(3)]), META);
    const agent = stubUpstream({ sendMessage: async () => ({ task: task([q(1), r(1), r(2), r(3), r(4)]) }) });
    const gateway = createGateway(agent, { registry, upstreamName: 'up' });

    const response = await gateway.sendMessage({ tenant: '', message: q(4) }, ALICE);

    expect('task' in response && texts(response.task)).toEqual(['q1', 'r1', 'r2', 'q3', 'r3', 'q4', 'r4']);
  });

  it('GetTask: a record within the limit keeps the opening message an agent never shows first (iac-code)', async () => {
    const registry = await store.create();
    await registry.put(task([q(1), r(1)]), META);
    const agent = stubUpstream({ getTask: async () => task([r(1), r(2)]) });
    const gateway = createGateway(agent, { registry, upstreamName: 'up' });

    const answer = await gateway.getTask({ tenant: '', id: 'T' }, ALICE);

    expect(texts(answer)).toEqual(['q1', 'r1', 'r2']);
  });
});
