/**
 * The TaskRegistry contract (registry-contract.ts), part four: tenants. A task is recorded in the tenant
 * it was created under (TaskMeta.tenant; none is the default tenant ''), partitions its owner's tasks by
 * it, and keeps it: no write under another tenant reaches it.
 */
import { expect, it } from 'vitest';
import type { TaskMeta } from '../../src/core/task-registry/types.js';
import type { ContractScope } from './registry-contract.js';
import { ALICE, BOB, status, taskOf } from './registry-fixtures.js';
import { waitUntil } from '../support/wait-until.js';

const ALICE_ACME: TaskMeta = { ...ALICE, tenant: 'acme' };
const ALICE_GLOBEX: TaskMeta = { ...ALICE, tenant: 'globex' };

export function tenantsContract({ open, replica }: ContractScope): void {
  it("tells a task's owner and tenant in one read, the default tenant for a task written without one", async () => {
    const registry = await open();
    await registry.put(taskOf('acme-1'), ALICE_ACME);
    await registry.put(taskOf('plain-1'), ALICE);
    await registry.put(taskOf('blank-1'), { ...ALICE, tenant: '' });
    expect(await registry.scopeOf('acme-1')).toEqual({ owner: ALICE.owner, tenant: 'acme' });
    expect(await registry.scopeOf('plain-1')).toEqual({ owner: ALICE.owner, tenant: '' });
    expect(await registry.scopeOf('blank-1')).toEqual({ owner: ALICE.owner, tenant: '' });
    expect(await registry.scopeOf('unknown')).toBeUndefined();
    expect(await registry.ownerOf('acme-1')).toBe(ALICE.owner);
    // get is the owner's, whatever the tenant: what names a task is scoped to its tenant above the registry.
    expect((await registry.get('acme-1', ALICE.owner))?.id).toBe('acme-1');
    expect(await registry.get('acme-1', BOB.owner)).toBeUndefined();
    // Both in the one read, whoever asks (the caller's scope is judged above the registry, task-scope.ts).
    expect(await registry.scopedTask('acme-1')).toEqual({ owner: ALICE.owner, tenant: 'acme', task: await registry.get('acme-1', ALICE.owner) });
    expect(await registry.scopedTask('plain-1')).toMatchObject({ owner: ALICE.owner, tenant: '', task: { id: 'plain-1' } });
    expect(await registry.scopedTask('unknown')).toBeUndefined();
    // Another replica reads the same.
    expect(await replica().scopeOf('acme-1')).toEqual({ owner: ALICE.owner, tenant: 'acme' });
    expect(await replica().scopedTask('acme-1')).toMatchObject({ owner: ALICE.owner, tenant: 'acme', task: { id: 'acme-1' } });
  });

  it("lists under a tenant only that tenant's tasks, and without one only the default tenant's", async () => {
    const registry = await open();
    await registry.put(taskOf('a1', { timestamp: '2026-01-01T00:00:01Z', contextId: 'ctx-1' }), ALICE_ACME);
    await registry.put(taskOf('a2', { timestamp: '2026-01-01T00:00:02Z', contextId: 'ctx-1', state: 'TASK_STATE_COMPLETED' }), ALICE_ACME);
    await registry.put(taskOf('a3', { timestamp: '2026-01-01T00:00:03Z', contextId: 'ctx-2' }), ALICE_ACME);
    await registry.put(taskOf('g1', { timestamp: '2026-01-01T00:00:04Z', contextId: 'ctx-1' }), ALICE_GLOBEX);
    await registry.put(taskOf('p1', { timestamp: '2026-01-01T00:00:05Z', contextId: 'ctx-1' }), ALICE);
    await registry.put(taskOf('b1', { timestamp: '2026-01-01T00:00:06Z', contextId: 'ctx-1' }), { ...BOB, tenant: 'acme' });
    const ids = async (request: Parameters<typeof registry.list>[0], owner = ALICE.owner) => {
      const page = await registry.list(request, owner);
      return { ids: page.tasks.map((task) => task.id), total: page.totalSize };
    };
    expect(await ids({ tenant: 'acme' })).toEqual({ ids: ['a3', 'a2', 'a1'], total: 3 });
    expect(await ids({ tenant: 'globex' })).toEqual({ ids: ['g1'], total: 1 });
    expect(await ids({})).toEqual({ ids: ['p1'], total: 1 });
    expect(await ids({ tenant: '' })).toEqual({ ids: ['p1'], total: 1 });
    expect(await ids({ tenant: 'initech' })).toEqual({ ids: [], total: 0 });
    expect(await ids({ tenant: 'acme' }, BOB.owner)).toEqual({ ids: ['b1'], total: 1 });
    // Each filter and page keeps to the tenant.
    expect(await ids({ tenant: 'acme', contextId: 'ctx-1' })).toEqual({ ids: ['a2', 'a1'], total: 2 });
    expect(await ids({ tenant: 'acme', status: 'TASK_STATE_WORKING' })).toEqual({ ids: ['a3', 'a1'], total: 2 });
    expect(await ids({ tenant: 'acme', contextId: 'ctx-1', status: 'TASK_STATE_WORKING' })).toEqual({ ids: ['a1'], total: 1 });
    const first = await registry.list({ tenant: 'acme', pageSize: 2 }, ALICE.owner);
    expect(first.tasks.map((task) => task.id)).toEqual(['a3', 'a2']);
    const second = await registry.list({ tenant: 'acme', pageSize: 2, pageToken: first.nextPageToken }, ALICE.owner);
    expect(second.tasks.map((task) => task.id)).toEqual(['a1']);
    expect(second.nextPageToken).toBe('');
    // A task that changes state moves within its tenant's indexes only.
    await registry.apply(status('a1', 'TASK_STATE_COMPLETED', { timestamp: '2026-01-01T00:00:07Z' }), ALICE_ACME);
    expect(await ids({ tenant: 'acme', status: 'TASK_STATE_COMPLETED' })).toEqual({ ids: ['a1', 'a2'], total: 2 });
    expect(await ids({ status: 'TASK_STATE_COMPLETED' })).toEqual({ ids: [], total: 0 });
    // Another replica lists the same.
    expect((await replica().list({ tenant: 'globex' }, ALICE.owner)).tasks.map((task) => task.id)).toEqual(['g1']);
  });

  it("finds a context's latest task whatever its tenant, with that tenant, on every replica", async () => {
    const registry = await open();
    await registry.put(taskOf('a1', { contextId: 'shared' }), ALICE_ACME);
    expect(await registry.latestInContext('shared', ALICE.owner)).toMatchObject({ task: { id: 'a1' }, tenant: 'acme' });
    await registry.put(taskOf('p1', { contextId: 'shared' }), ALICE);
    expect(await registry.latestInContext('shared', ALICE.owner)).toMatchObject({ task: { id: 'p1' }, tenant: '' });
    await registry.put(taskOf('g1', { contextId: 'shared' }), ALICE_GLOBEX);
    expect(await registry.latestInContext('shared', ALICE.owner)).toMatchObject({ task: { id: 'g1' }, tenant: 'globex' });
    expect((await registry.latestInContext('shared', ALICE.owner))?.task?.id).toBe('g1');
    // A write to an older task of the context makes it the latest again, in its own tenant.
    await registry.put(taskOf('a1', { contextId: 'shared', state: 'TASK_STATE_INPUT_REQUIRED' }), ALICE_ACME);
    expect(await registry.latestInContext('shared', ALICE.owner)).toMatchObject({ task: { id: 'a1' }, tenant: 'acme' });
    expect(await replica().latestInContext('shared', ALICE.owner)).toMatchObject({ task: { id: 'a1' }, tenant: 'acme' });
    // Another owner's tasks are not its latest, nor are another context's.
    await registry.put(taskOf('b1', { contextId: 'shared' }), { ...BOB, tenant: 'acme' });
    expect((await registry.latestInContext('shared', ALICE.owner))?.task?.id).toBe('a1');
    expect(await registry.latestInContext('shared', BOB.owner)).toMatchObject({ task: { id: 'b1' }, tenant: 'acme' });
    expect(await registry.latestInContext('other', ALICE.owner)).toBeUndefined();
    // The context belongs to its first writer, in the tenant it was opened under.
    expect(await registry.contextOwner('shared')).toBe(ALICE.owner);
    expect(await registry.contextScope('shared')).toEqual({ owner: ALICE.owner, tenant: 'acme' });
  });

  it('keeps a context to the owner and the tenant it was opened under, on every replica', async () => {
    const registry = await open();
    await registry.put(taskOf('a1', { contextId: 'opened-in-acme' }), ALICE_ACME);
    await registry.put(taskOf('p1', { contextId: 'opened-plain' }), ALICE);
    // Later tasks in the context under another tenant, or of another owner, do not take it over.
    await registry.put(taskOf('g1', { contextId: 'opened-in-acme' }), ALICE_GLOBEX);
    await registry.put(taskOf('p2', { contextId: 'opened-in-acme' }), ALICE);
    await registry.put(taskOf('b1', { contextId: 'opened-plain' }), { ...BOB, tenant: 'acme' });
    await registry.put(taskOf('a2', { contextId: 'opened-plain' }), ALICE_ACME);
    for (const store of [registry, replica()]) {
      expect(await store.contextScope('opened-in-acme')).toEqual({ owner: ALICE.owner, tenant: 'acme' });
      expect(await store.contextScope('opened-plain')).toEqual({ owner: ALICE.owner, tenant: '' });
      expect(await store.contextOwner('opened-in-acme')).toBe(ALICE.owner);
      expect(await store.contextScope('unknown')).toBeUndefined();
    }
  });

  it("names a context's tenant, the default one as '', for as long as its owner's writes there keep it", async () => {
    // An owner's TTL of 1.5 s, written and read 600 ms apart: with 500 ms and 300 ms apart, a loaded host's stall
    // outlasted the 200 ms left of the TTL.
    const registry = await open({ idleTtlMs: 150, contextOwnerTtlMs: 1_500 });
    await registry.put(taskOf('p1', { contextId: 'plain' }), ALICE);
    await registry.put(taskOf('a1', { contextId: 'in-acme' }), ALICE_ACME);
    // Renewed past its first TTL by the owner's tasks in its tenant, from either replica: the tenant stays with the owner.
    for (const [store, turn] of [
      [replica(), 2],
      [registry, 3],
    ] as const) {
      await new Promise((resolve) => setTimeout(resolve, 600));
      await store.put(taskOf(`p${turn}`, { contextId: 'plain' }), ALICE);
      await store.put(taskOf(`a${turn}`, { contextId: 'in-acme' }), ALICE_ACME);
    }
    await new Promise((resolve) => setTimeout(resolve, 600));
    for (const store of [registry, replica()]) {
      // No tenant would be one not recorded (a context of before context tenants, its owner's under any tenant).
      expect(await store.contextScope('plain')).toStrictEqual({ owner: ALICE.owner, tenant: '' });
      expect(await store.contextScope('in-acme')).toStrictEqual({ owner: ALICE.owner, tenant: 'acme' });
    }
    const other = replica();
    await waitUntil(async () => (await registry.contextScope('plain')) === undefined && (await other.contextScope('in-acme')) === undefined);
  });

  it('writes nothing of a task under another tenant than its own, from either replica', async () => {
    const registry = await open();
    await registry.put(taskOf('t1', { timestamp: '2026-01-01T00:00:01Z' }), ALICE_ACME);
    for (const store of [registry, replica()]) {
      expect(await store.apply(status('t1', 'TASK_STATE_COMPLETED'), ALICE_GLOBEX)).toBeUndefined();
      expect(await store.applyAll([status('t1', 'TASK_STATE_FAILED')], ALICE)).toBeUndefined();
      await store.put(taskOf('t1', { state: 'TASK_STATE_CANCELED' }), ALICE);
    }
    expect((await registry.get('t1', ALICE.owner))?.status.state).toBe('TASK_STATE_WORKING');
    expect(await registry.scopeOf('t1')).toEqual({ owner: ALICE.owner, tenant: 'acme' });
    expect((await registry.list({}, ALICE.owner)).tasks).toEqual([]);
    expect((await registry.list({ tenant: 'acme' }, ALICE.owner)).tasks.map((task) => task.id)).toEqual(['t1']);
    // Its own tenant writes on.
    expect((await registry.apply(status('t1', 'TASK_STATE_COMPLETED'), ALICE_ACME))?.status.state).toBe('TASK_STATE_COMPLETED');
  });
}
