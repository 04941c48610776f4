/**
 * The TaskRegistry contract (registry-contract.ts), part two: listing (filters, order, pages) and a
 * context's latest task.
 */
import { expect, it } from 'vitest';
import type { Task } from '../../src/model/index.js';
import type { ContractScope } from './registry-contract.js';
import { ALICE, BOB, agentMessage, status, taskOf } from './registry-fixtures.js';
import { rejection } from '../support/rejection.js';

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
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
}

export function readsContract({ open }: ContractScope): void {
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
    expect((await registry.latestInContext('ctx-1', ALICE.owner))?.task?.id).toBe('second');
    await registry.apply(status('first', 'TASK_STATE_WORKING'), ALICE);
    expect((await registry.latestInContext('ctx-1', ALICE.owner))?.task?.id).toBe('first');
    expect((await registry.latestInContext('ctx-1', BOB.owner))?.task).toBeUndefined();
    expect((await registry.latestInContext('ctx-none', ALICE.owner))?.task).toBeUndefined();
  });
}
