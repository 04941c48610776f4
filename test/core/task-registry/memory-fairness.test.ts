/**
 * The memory registry's bounds take from the principal holding the most (fair-lru.ts): Bob writing more
 * tasks and contexts than they hold, under any tenants he names, pushes out his own, never Alice's.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryTaskRegistry } from '../../../src/core/task-registry/memory.js';
import { ALICE, BOB, taskOf } from '../registry-fixtures.js';

describe('the memory registry under one principal’s flood', () => {
  it('keeps another principal’s context and task, however many tenants the flood names', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 0, historyLimit: 10 });
    await registry.put(taskOf('alice-task', { contextId: 'alice-context' }), ALICE);
    // Past the context-owner bound (1,000 at this max-tasks), each in a tenant of its own.
    for (let i = 0; i < 1_010; i++) await registry.put(taskOf(`bob-task-${i}`, { contextId: `bob-context-${i}` }), { ...BOB, tenant: `t${i}` });
    expect(await registry.contextScope('alice-context')).toEqual({ owner: ALICE.owner, tenant: '' });
    expect((await registry.get('alice-task', ALICE.owner))?.contextId).toBe('alice-context');
    // Bob keeps his latest, as an LRU of his own would.
    expect(await registry.contextOwner('bob-context-1009')).toBe(BOB.owner);
    expect(await registry.contextOwner('bob-context-0')).toBeUndefined();
    expect(await registry.get('bob-task-1009', BOB.owner)).toBeDefined();
    expect(await registry.get('bob-task-0', BOB.owner)).toBeUndefined();
    await registry.close();
  });

  it('is a plain LRU for a single principal: its least recently used task and context go first', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 2, idleTtlMs: 0, historyLimit: 10 });
    await registry.put(taskOf('first', { contextId: 'c1' }), ALICE);
    await registry.put(taskOf('second', { contextId: 'c2' }), ALICE);
    await registry.get('first', ALICE.owner);
    await registry.put(taskOf('third', { contextId: 'c3' }), ALICE);
    expect(await registry.get('second', ALICE.owner)).toBeUndefined();
    expect(await registry.get('first', ALICE.owner)).toBeDefined();
    expect(await registry.get('third', ALICE.owner)).toBeDefined();
    // The context owners are bounded by 1,000 here: all three are still known.
    expect(await registry.contextOwner('c2')).toBe(ALICE.owner);
    await registry.close();
  });
});
