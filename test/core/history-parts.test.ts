/**
 * A caller's large raw parts (a user's photo) are kept in a stored task's history as one line naming
 * them (`tasks.history-part-max-bytes`): in the fold itself, in both stores, and through the gateway,
 * where the agent still gets every byte and the official SDK client's ListTasks shows the line beside
 * the agent's whole answer.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutLargeUserParts } from '../../src/core/task-registry/history-parts.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import type { Message, Part, Task } from '../../src/model/index.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { lookReply, startScriptedAgent, type RunningScriptedAgent } from '../support/sdk-v1-scripted-agents.js';
import { asTask, connect, listRequest, sendRequest, TRANSPORTS } from '../support/sdk-v1-client.js';
import { Role } from 'a2a-sdk-1';

const bytes = (count: number) => Buffer.alloc(count, 7);
const rawPart = (count: number, filename = 'photo.jpg'): Part => ({ raw: bytes(count).toString('base64'), mediaType: 'image/jpeg', filename });
const user = (parts: Part[], messageId = randomUUID()): Message => ({ messageId, role: 'ROLE_USER', parts });
const agent = (parts: Part[]): Message => ({ messageId: randomUUID(), role: 'ROLE_AGENT', parts });
const taskWith = (history: Message[], id = 't1'): Task => ({ id, contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' }, history });

describe('withoutLargeUserParts', () => {
  it("keeps a caller's raw part of exactly the bound, and leaves the task itself when nothing is past it", () => {
    const task = taskWith([user([{ text: 'look' }, rawPart(1024)])]);
    expect(withoutLargeUserParts(task, 1024)).toBe(task);
    expect(withoutLargeUserParts(task, Infinity)).toBe(task);
  });

  it("keeps a larger one as a line naming it, its type and size; the words beside it and the agent's own parts stay whole", () => {
    const task = taskWith([user([{ text: 'look' }, rawPart(1025), rawPart(3 * 1024 * 1024, 'big.png')]), agent([rawPart(4096)])]);
    const kept = withoutLargeUserParts(task, 1024);
    expect(kept.history![0]!.parts).toEqual([
      { text: 'look' },
      {
        text: '[photo.jpg (image/jpeg, 1.0 KiB) was sent; the gateway keeps no copy]',
        mediaType: 'text/plain',
        filename: 'photo.jpg',
        metadata: { omittedRaw: { mediaType: 'image/jpeg', bytes: 1025 } },
      },
      expect.objectContaining({ text: '[big.png (image/jpeg, 3.0 MiB) was sent; the gateway keeps no copy]' }),
    ]);
    expect(kept.history![1]).toBe(task.history![1]);
    // Nothing given is changed.
    expect(task.history![0]!.parts[1]!.raw).toBeDefined();
  });
});

const stores: Array<[string, () => Promise<{ registry: TaskRegistry; close(): Promise<void> }>]> = [
  [
    'memory',
    async () => {
      const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 10, historyPartMaxBytes: 1024 });
      return { registry, close: () => registry.close() };
    },
  ],
  [
    'redis',
    async () => {
      await requireRedis();
      const redis = new Redis(REDIS_URL);
      const prefix = `a2a-bridge-test:${randomUUID()}:`;
      const registry = createRedisTaskRegistry({ redis, prefix, idleTtlMs: 60_000, historyLimit: 10, historyPartMaxBytes: 1024 });
      return {
        registry,
        close: async () => {
          await registry.close();
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
          redis.disconnect();
        },
      };
    },
  ],
];

describe.each(stores)('the %s registry', (_name, open) => {
  const meta = { owner: 'api-key:one', upstream: 'up' };
  let store: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(() => store.close());

  it('stores a snapshot, a folded follow-up and a put task without the large user parts', async () => {
    await store.registry.apply({ task: taskWith([user([{ text: 'first' }, rawPart(2048)])], 'snap') }, meta);
    await store.registry.apply({ message: { ...user([{ text: 'second' }, rawPart(4096), rawPart(100, 'icon.png')]), taskId: 'snap' } }, meta);
    await store.registry.put(taskWith([user([rawPart(5000)]), agent([rawPart(5000)])], 'put'), meta);
    const snap = await store.registry.get('snap', meta.owner);
    expect(snap?.history?.map((message) => message.parts.map((part) => part.text ?? `raw ${part.filename}`))).toEqual([
      ['first', '[photo.jpg (image/jpeg, 2.0 KiB) was sent; the gateway keeps no copy]'],
      ['second', '[photo.jpg (image/jpeg, 4.0 KiB) was sent; the gateway keeps no copy]', 'raw icon.png'],
    ]);
    const put = await store.registry.get('put', meta.owner);
    expect(put?.history?.[0]?.parts[0]?.raw).toBeUndefined();
    expect(put?.history?.[1]?.parts[0]?.raw).toBe(bytes(5000).toString('base64'));
  });
});

describe('through the gateway (default bound, 64 KiB)', () => {
  let agentServer: RunningScriptedAgent;
  let gateway: TestGateway;
  beforeAll(async () => {
    agentServer = await startScriptedAgent();
    gateway = await startTestGateway({ upstream: { url: agentServer.url } });
  });
  afterAll(async () => {
    await gateway.close();
    await agentServer.close();
  });

  /** What the SDK client shows of a part: its text, or that it holds bytes. */
  const shown = (part: { content?: { $case: string; value: unknown } }): string =>
    part.content?.$case === 'text' ? (part.content.value as string) : `(${part.content?.$case})`;

  it.each(TRANSPORTS)(
    'over %s the agent gets every byte of a 70 KB photo (its HTTP server takes 100 KB); ListTasks shows the line in its place, and the whole answer',
    async (transport) => {
      const { client } = await connect(gateway.url, transport);
      const photo = bytes(70_000);
      const contextId = randomUUID();
      const request = sendRequest('look', { contextId });
      request.message!.parts.push({ content: { $case: 'raw', value: photo }, filename: 'photo.jpg', mediaType: 'image/jpeg', metadata: undefined });
      const answer = lookReply([{ filename: 'photo.jpg', mediaType: 'image/jpeg', bytes: photo }], 0);
      const sent = asTask(await client.sendMessage(request));
      expect(sent.status?.message?.parts.map(shown)).toEqual([answer]);

      const { tasks } = await client.listTasks(listRequest({ contextId, historyLength: 10 }));
      expect(tasks).toHaveLength(1);
      const [task] = tasks;
      const userParts = task!.history.filter((message) => message.role === Role.ROLE_USER).flatMap((message) => message.parts.map(shown));
      expect(userParts).toEqual(['look', '[photo.jpg (image/jpeg, 68.4 KiB) was sent; the gateway keeps no copy]']);
      expect(task!.status?.message?.parts.map(shown)).toEqual([answer]);
    },
  );
});
