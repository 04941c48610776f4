/**
 * The TaskRegistry contract, run against every store (task-registry.test.ts). A factory gives a
 * fresh, empty registry; `replica()` gives a second registry on the same storage (for Redis, a
 * second client: two gateway replicas), or the same instance where storage is process-local.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { A2AError, type Message, type StreamResponse, type Task, type TaskState } from '../../src/model/index.js';
import type { TaskMeta, TaskRegistry } from '../../src/core/task-registry/types.js';

export interface RegistryHandle {
  registry: TaskRegistry;
  replica(): TaskRegistry;
  cleanup(): Promise<void>;
}
export type RegistryFactory = (options: { historyLimit: number; idleTtlMs: number; contextOwnerTtlMs?: number }) => Promise<RegistryHandle>;

const ALICE: TaskMeta = { owner: 'basic:alice', upstream: 'up' };
const BOB: TaskMeta = { owner: 'basic:bob', upstream: 'up' };

export const agentMessage = (taskId: string, text: string, messageId = `${taskId}-message`): Message => ({
  messageId,
  role: 'ROLE_AGENT',
  taskId,
  parts: [{ text }],
});

export function taskOf(id: string, options: { contextId?: string; state?: TaskState; timestamp?: string; history?: Message[] } = {}): Task {
  const task: Task = { id, contextId: options.contextId ?? 'ctx-1', status: { state: options.state ?? 'TASK_STATE_WORKING' } };
  if (options.timestamp) task.status.timestamp = options.timestamp;
  if (options.history) task.history = options.history;
  return task;
}

const status = (
  taskId: string,
  state: TaskState,
  extra: { message?: Message; timestamp?: string; metadata?: Record<string, unknown> } = {},
): StreamResponse => ({
  statusUpdate: {
    taskId,
    contextId: 'ctx-1',
    status: { state, ...(extra.message ? { message: extra.message } : {}), ...(extra.timestamp ? { timestamp: extra.timestamp } : {}) },
    ...(extra.metadata ? { metadata: extra.metadata } : {}),
  },
});

/** An independent statement of the order: timestamp (ms precision here) desc, id desc, no timestamp last. */
function expectedOrder(tasks: Task[]): string[] {
  return [...tasks]
    .sort((a, b) => {
      const ta = a.status.timestamp ? Date.parse(a.status.timestamp) : -Infinity;
      const tb = b.status.timestamp ? Date.parse(b.status.timestamp) : -Infinity;
      if (ta !== tb) return tb - ta;
      return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
    })
    .map((task) => task.id);
}

async function expectA2AError(promise: Promise<unknown>, code: number, message: string | RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(A2AError);
  expect((error as A2AError).code).toBe(code);
  if (typeof message === 'string') expect((error as A2AError).message).toBe(message);
  else expect((error as A2AError).message).toMatch(message);
}

export function registryContract(name: string, factory: RegistryFactory): void {
  describe(`TaskRegistry contract: ${name}`, () => {
    let handle: RegistryHandle | undefined;
    const open = async (options: Partial<{ historyLimit: number; idleTtlMs: number; contextOwnerTtlMs: number }> = {}) => {
      handle = await factory({ historyLimit: 200, idleTtlMs: 60_000, ...options });
      return handle.registry;
    };
    afterEach(async () => {
      await handle?.cleanup();
      handle = undefined;
    });

    it('stores a task snapshot for its owner only', async () => {
      const registry = await open();
      const snapshot = await registry.apply({ task: taskOf('t1') }, ALICE);
      expect(snapshot?.id).toBe('t1');
      expect(await registry.get('t1', ALICE.owner)).toMatchObject({ id: 't1', contextId: 'ctx-1' });
      expect(await registry.get('t1', BOB.owner)).toBeUndefined();
      expect(await registry.ownerOf('t1')).toBe(ALICE.owner);
      expect(await registry.ownerOf('nope')).toBeUndefined();
      expect(await registry.contextOwner('ctx-1')).toBe(ALICE.owner);
      // Another owner can neither overwrite nor extend it.
      expect(await registry.apply(status('t1', 'TASK_STATE_FAILED'), BOB)).toBeUndefined();
      expect((await registry.get('t1', ALICE.owner))?.status.state).toBe('TASK_STATE_WORKING');
    });

    it('moves the previous status message into history and merges metadata, like the SDK', async () => {
      const registry = await open();
      await registry.apply({ task: taskOf('t1', { history: [{ messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'make vpc' }] }] }) }, ALICE);
      await registry.apply(
        status('t1', 'TASK_STATE_WORKING', { message: agentMessage('t1', 'Hello '), metadata: { iac_code: { a: 1 }, other: true } }),
        ALICE,
      );
      await registry.apply(status('t1', 'TASK_STATE_WORKING', { message: agentMessage('t1', 'world.'), metadata: { iac_code: { b: 2 } } }), ALICE);
      const last = await registry.apply(status('t1', 'TASK_STATE_INPUT_REQUIRED', { timestamp: '2026-01-01T00:00:00Z' }), ALICE);
      const texts = (last?.history ?? []).map((message) => message.parts[0]?.text);
      expect(texts).toEqual(['make vpc', 'Hello ', 'world.']);
      expect(last?.status).toEqual({ state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-01-01T00:00:00Z' });
      expect(last?.metadata).toEqual({ iac_code: { b: 2 }, other: true });
      expect(await registry.get('t1', ALICE.owner)).toEqual(last);
    });

    it('starts a task from an update when no snapshot came first', async () => {
      const registry = await open();
      const task = await registry.apply(status('t9', 'TASK_STATE_WORKING'), ALICE);
      expect(task).toMatchObject({ id: 't9', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } });
    });

    it('folds artifact updates with append and replace semantics', async () => {
      const registry = await open();
      await registry.apply({ task: taskOf('t1') }, ALICE);
      const artifact = (parts: string[], append?: boolean, artifactId = 'a1'): StreamResponse => ({
        artifactUpdate: {
          taskId: 't1',
          contextId: 'ctx-1',
          artifact: { artifactId, parts: parts.map((text) => ({ text })) },
          ...(append === undefined ? {} : { append }),
          lastChunk: false,
        },
      });
      await registry.apply(artifact(['one']), ALICE);
      await registry.apply(artifact(['two'], true), ALICE);
      let task = await registry.apply(artifact(['x'], true, 'unknown'), ALICE);
      expect(task?.artifacts?.map((a) => a.parts.map((p) => p.text))).toEqual([['one', 'two']]);
      task = await registry.apply(artifact(['fresh'], false), ALICE);
      expect(task?.artifacts?.map((a) => a.parts.map((p) => p.text))).toEqual([['fresh']]);
      task = await registry.apply(artifact(['b'], false, 'a2'), ALICE);
      expect(task?.artifacts?.map((a) => a.artifactId)).toEqual(['a1', 'a2']);
    });

    it('appends a message event to its known task and ignores a bare message', async () => {
      const registry = await open();
      expect(await registry.apply({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }, ALICE)).toBeUndefined();
      await registry.apply({ task: taskOf('t1') }, ALICE);
      const task = await registry.apply({ message: agentMessage('t1', 'follow-up', 'm2') }, ALICE);
      expect(task?.history?.map((m) => m.messageId)).toEqual(['m2']);
    });

    it('bounds stored history to the configured limit', async () => {
      const registry = await open({ historyLimit: 3 });
      await registry.apply({ task: taskOf('t1') }, ALICE);
      for (let i = 0; i < 6; i++) await registry.apply(status('t1', 'TASK_STATE_WORKING', { message: agentMessage('t1', `c${i}`, `m${i}`) }), ALICE);
      const task = await registry.get('t1', ALICE.owner);
      expect(task?.history?.map((m) => m.messageId)).toEqual(['m2', 'm3', 'm4']);
      await registry.put(taskOf('t2', { history: [1, 2, 3, 4, 5].map((i) => agentMessage('t2', `h${i}`, `h${i}`)) }), ALICE);
      expect((await registry.get('t2', ALICE.owner))?.history?.map((m) => m.messageId)).toEqual(['h3', 'h4', 'h5']);
    });

    it('lists with filters, order, history trimming and artifacts only on request', async () => {
      const registry = await open();
      await registry.put(
        {
          ...taskOf('a', { timestamp: '2026-01-01T00:00:01Z', state: 'TASK_STATE_COMPLETED' }),
          artifacts: [{ artifactId: 'x', parts: [{ text: 'x' }] }],
        },
        ALICE,
      );
      await registry.put(
        taskOf('b', { timestamp: '2026-01-01T00:00:03Z', contextId: 'ctx-2', history: [agentMessage('b', '1', 'b1'), agentMessage('b', '2', 'b2')] }),
        ALICE,
      );
      await registry.put(taskOf('c', { timestamp: '2026-01-01T00:00:03Z' }), ALICE);
      await registry.put(taskOf('d'), ALICE);
      await registry.put(taskOf('e', { timestamp: '2026-01-01T00:00:02.500001Z' }), ALICE);
      await registry.put(taskOf('z', { timestamp: '2026-01-01T00:00:09Z' }), BOB);

      const all = await registry.list({}, ALICE.owner);
      expect(all.tasks.map((t) => t.id)).toEqual(['c', 'b', 'e', 'a', 'd']);
      expect(all).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 5 });
      expect(all.tasks.find((t) => t.id === 'a')?.artifacts).toBeUndefined();
      expect(all.tasks.find((t) => t.id === 'b')?.history).toHaveLength(2);

      const withArtifacts = await registry.list({ includeArtifacts: true, historyLength: 0 }, ALICE.owner);
      expect(withArtifacts.tasks.find((t) => t.id === 'a')?.artifacts).toHaveLength(1);
      expect(withArtifacts.tasks.find((t) => t.id === 'b')?.history).toBeUndefined();
      const lastOne = await registry.list({ historyLength: 1 }, ALICE.owner);
      expect(lastOne.tasks.find((t) => t.id === 'b')?.history?.map((m) => m.messageId)).toEqual(['b2']);
      expect((await registry.get('b', ALICE.owner))?.history).toHaveLength(2);

      expect((await registry.list({ contextId: 'ctx-2' }, ALICE.owner)).tasks.map((t) => t.id)).toEqual(['b']);
      const completed = await registry.list({ status: 'TASK_STATE_COMPLETED' }, ALICE.owner);
      expect(completed.tasks.map((t) => t.id)).toEqual(['a']);
      expect(completed.totalSize).toBe(1);
      const both = await registry.list({ contextId: 'ctx-1', status: 'TASK_STATE_WORKING' }, ALICE.owner);
      expect(both.tasks.map((t) => t.id)).toEqual(['c', 'e', 'd']);
      const after = await registry.list({ statusTimestampAfter: '2026-01-01T00:00:02.500001Z' }, ALICE.owner);
      expect(after.tasks.map((t) => t.id)).toEqual(['c', 'b']);
      expect(after.totalSize).toBe(2);
      expect((await registry.list({ statusTimestampAfter: '2026-01-01T00:00:02.5Z' }, ALICE.owner)).tasks.map((t) => t.id)).toEqual(['c', 'b', 'e']);
      expect((await registry.list({}, 'nobody')).tasks).toEqual([]);
    });

    it('re-sorts a task when its status timestamp changes', async () => {
      const registry = await open();
      await registry.put(taskOf('old', { timestamp: '2026-01-01T00:00:01Z' }), ALICE);
      await registry.put(taskOf('new', { timestamp: '2026-01-01T00:00:02Z' }), ALICE);
      await registry.apply(status('old', 'TASK_STATE_COMPLETED', { timestamp: '2026-01-01T00:00:05Z' }), ALICE);
      const listed = await registry.list({}, ALICE.owner);
      expect(listed.tasks.map((t) => t.id)).toEqual(['old', 'new']);
      expect(listed.totalSize).toBe(2);
      expect((await registry.list({ status: 'TASK_STATE_WORKING' }, ALICE.owner)).tasks.map((t) => t.id)).toEqual(['new']);
    });

    it('pages 250 tasks in pages of 20: every task exactly once, in order, despite concurrent inserts', async () => {
      const registry = await open();
      const tasks: Task[] = [];
      for (let i = 0; i < 250; i++) {
        // Groups of 7 share a timestamp (tie-break on id); every 25th has none (sorted last).
        const second = Math.floor(i / 7);
        const timestamp = i % 25 === 0 ? undefined : new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
        tasks.push(taskOf(`task-${String((i * 37) % 250).padStart(3, '0')}`, { timestamp }));
      }
      await Promise.all(tasks.map((task) => registry.put(task, ALICE)));
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const page = await registry.list({ pageSize: 20, ...(token ? { pageToken: token } : {}) }, ALICE.owner);
        expect(page.pageSize).toBe(20);
        expect(page.tasks.length).toBeLessThanOrEqual(20);
        seen.push(...page.tasks.map((t) => t.id));
        token = page.nextPageToken;
        // A task created while paging sorts before the cursor and must not disturb the walk.
        await registry.put(taskOf(`late-${pages}`, { timestamp: '2027-01-01T00:00:00Z' }), ALICE);
        pages++;
      } while (token && pages < 50);
      expect(pages).toBe(13);
      expect(seen).toEqual(expectedOrder(tasks));
      expect(new Set(seen).size).toBe(250);
    });

    it('rejects bad page tokens and page sizes with -32602', async () => {
      const registry = await open();
      await expectA2AError(registry.list({ pageToken: 'not a token!' }, ALICE.owner), -32602, 'Invalid page token: not a token!');
      const wrongShape = Buffer.from(JSON.stringify({ m: 'nope' })).toString('base64url');
      await expectA2AError(registry.list({ pageToken: wrongShape }, ALICE.owner), -32602, `Invalid page token: ${wrongShape}`);
      await expectA2AError(registry.list({ pageToken: 'YWJj' }, ALICE.owner), -32602, 'Invalid page token: YWJj');
      await expectA2AError(registry.list({ pageSize: 0 }, ALICE.owner), -32602, 'minimum page size is 1');
      await expectA2AError(registry.list({ pageSize: 101 }, ALICE.owner), -32602, 'maximum page size is 100');
      await expectA2AError(registry.list({ statusTimestampAfter: 'yesterday' }, ALICE.owner), -32602, /statusTimestampAfter/);
    });

    it('finds the latest task of a context for its owner', async () => {
      const registry = await open();
      await registry.put(taskOf('first', { timestamp: '2026-01-01T00:00:09Z' }), ALICE);
      await registry.put(taskOf('second'), ALICE);
      expect((await registry.latestForContext('ctx-1', ALICE.owner))?.id).toBe('second');
      await registry.apply(status('first', 'TASK_STATE_WORKING'), ALICE);
      expect((await registry.latestForContext('ctx-1', ALICE.owner))?.id).toBe('first');
      expect(await registry.latestForContext('ctx-1', BOB.owner)).toBeUndefined();
      expect(await registry.latestForContext('ctx-none', ALICE.owner)).toBeUndefined();
    });

    it('loses no update when two replicas fold events of one task concurrently', async () => {
      const registry = await open();
      const other = handle!.replica();
      await registry.apply({ task: taskOf('t1') }, ALICE);
      const writes: Array<Promise<unknown>> = [];
      for (let i = 0; i < 40; i++) {
        writes.push(registry.apply(status('t1', 'TASK_STATE_WORKING', { message: agentMessage('t1', `a${i}`, `a${i}`) }), ALICE));
        writes.push(other.apply(status('t1', 'TASK_STATE_WORKING', { message: agentMessage('t1', `b${i}`, `b${i}`) }), ALICE));
      }
      await Promise.all(writes);
      const task = await registry.get('t1', ALICE.owner);
      const ids = [...(task?.history ?? []), task?.status.message].map((m) => m?.messageId);
      expect(ids).toHaveLength(80);
      expect(new Set(ids).size).toBe(80);
    });

    it('forgets tasks idle longer than the TTL, indexes included', async () => {
      const registry = await open({ idleTtlMs: 150 });
      await registry.put(taskOf('gone', { timestamp: '2026-01-01T00:00:01Z' }), ALICE);
      // Nothing announces an expiry, so waiting past the TTL is the only way to observe it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await registry.put(taskOf('kept', { timestamp: '2026-01-01T00:00:02Z', contextId: 'ctx-2' }), ALICE);
      expect(await registry.get('gone', ALICE.owner)).toBeUndefined();
      const listed = await registry.list({}, ALICE.owner);
      expect(listed.tasks.map((t) => t.id)).toEqual(['kept']);
      expect(listed.totalSize).toBe(1);
      expect((await registry.list({ status: 'TASK_STATE_WORKING' }, ALICE.owner)).totalSize).toBe(1);
      expect(await registry.latestForContext('ctx-1', ALICE.owner)).toBeUndefined();
      expect(await registry.contextOwner('ctx-1')).toBeUndefined();
    });

    it("remembers a context's owner past its tasks, for the context-owner TTL", async () => {
      const registry = await open({ idleTtlMs: 150, contextOwnerTtlMs: 900 });
      await registry.put(taskOf('gone', { contextId: 'ctx-kept' }), ALICE);
      await new Promise((resolve) => setTimeout(resolve, 400));
      // The task is gone; who the conversation belongs to is not, so Bob cannot take it over.
      expect(await registry.get('gone', ALICE.owner)).toBeUndefined();
      expect(await registry.latestForContext('ctx-kept', ALICE.owner)).toBeUndefined();
      expect(await registry.contextOwner('ctx-kept')).toBe(ALICE.owner);
      // Alice's next task there renews it; Bob's write into it changes nothing.
      await registry.put(taskOf('again', { contextId: 'ctx-kept' }), ALICE);
      await registry.put(taskOf('bobs', { contextId: 'ctx-kept' }), BOB);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await registry.contextOwner('ctx-kept')).toBe(ALICE.owner);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await registry.contextOwner('ctx-kept')).toBeUndefined();
    });
  });
}
