/**
 * The TaskRegistry contract (registry-contract.ts), part three: two replicas writing one task, and
 * what the idle and context-owner TTLs forget.
 */
import { expect, it } from 'vitest';
import type { ContractScope } from './registry-contract.js';
import { ALICE, BOB, agentMessage, status, taskOf } from './registry-fixtures.js';
import { waitUntil } from '../support/wait-until.js';

export function replicasAndTtlsContract({ open, replica }: ContractScope): void {
  it('loses no update when two replicas fold events of one task concurrently', async () => {
    const registry = await open();
    const other = replica();
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

  it('keeps the finished state another replica wrote over a running one this replica wrote last', async () => {
    const registry = await open();
    const other = replica();
    // This replica's last write is what it starts its next one from; the other replica finishes the task since.
    await registry.apply(status('t1', 'TASK_STATE_WORKING'), ALICE);
    await other.apply(status('t1', 'TASK_STATE_CANCELED'), ALICE);
    await registry.put(taskOf('t1', { state: 'TASK_STATE_WORKING' }), ALICE);
    expect(await registry.apply(status('t1', 'TASK_STATE_WORKING', { message: agentMessage('t1', 'late') }), ALICE)).toBeUndefined();
    expect((await other.get('t1', ALICE.owner))?.status.state).toBe('TASK_STATE_CANCELED');
    expect((await registry.list({ status: 'TASK_STATE_CANCELED' }, ALICE.owner)).tasks.map((t) => t.id)).toEqual(['t1']);
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
    expect((await registry.latestInContext('ctx-1', ALICE.owner))?.task).toBeUndefined();
    expect(await registry.contextOwner('ctx-1')).toBeUndefined();
  });

  it("remembers a context's owner past its tasks, for the context-owner TTL", async () => {
    // An owner's TTL of 2 s, read a second or more from either end of it: with 900 ms read 200 ms before its end, a
    // loaded host's stall outlasted that.
    const registry = await open({ idleTtlMs: 150, contextOwnerTtlMs: 2_000 });
    await registry.put(taskOf('gone', { contextId: 'ctx-kept' }), ALICE);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // The task is gone; who the conversation belongs to is not, so Bob cannot take it over.
    expect(await registry.get('gone', ALICE.owner)).toBeUndefined();
    expect((await registry.latestInContext('ctx-kept', ALICE.owner))?.task).toBeUndefined();
    expect(await registry.contextOwner('ctx-kept')).toBe(ALICE.owner);
    // Alice's next task there renews it; Bob's write into it changes nothing.
    await registry.put(taskOf('again', { contextId: 'ctx-kept' }), ALICE);
    await registry.put(taskOf('bobs', { contextId: 'ctx-kept' }), BOB);
    // Past the first TTL, well within the renewed one.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await registry.contextOwner('ctx-kept')).toBe(ALICE.owner);
    await waitUntil(async () => (await registry.contextOwner('ctx-kept')) === undefined);
  });

  it("renews a context only by its owner's tasks in the tenant it was opened under, and forgets its tenant with it", async () => {
    const registry = await open({ idleTtlMs: 150, contextOwnerTtlMs: 900 });
    await registry.put(taskOf('first', { contextId: 'ctx-acme' }), { ...ALICE, tenant: 'acme' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // A task of Alice's there under another tenant does not renew it (a message would not have got in).
    await registry.put(taskOf('other', { contextId: 'ctx-acme' }), ALICE);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await registry.contextScope('ctx-acme')).toBeUndefined();
    // Opened again, by the default tenant this time: the tenant of before is not left behind.
    await registry.put(taskOf('again', { contextId: 'ctx-acme' }), ALICE);
    expect(await registry.contextScope('ctx-acme')).toEqual({ owner: ALICE.owner, tenant: '' });
  });
}
