/**
 * The TaskRegistry contract (registry-contract.ts), part one: what a write stores, for whom, and how
 * events fold into a task.
 */
import { expect, it } from 'vitest';
import type { Message, StreamResponse } from '../../src/model/index.js';
import type { ContractScope } from './registry-contract.js';
import { ALICE, BOB, agentMessage, status, taskOf } from './registry-fixtures.js';

export function writesContract({ open }: ContractScope): void {
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

  it("keeps the user's messages a Task snapshot's history lacks where they were said (a 0.2.5 agent stores no follow-up)", async () => {
    const registry = await open();
    const said = (messageId: string): Message => ({ messageId, role: 'ROLE_USER', taskId: 't1', parts: [{ text: messageId }] });
    await registry.apply({ task: taskOf('t1', { history: [said('ask'), agentMessage('t1', 'which?', 'q1'), said('a1')] }) }, ALICE);
    const agentView = taskOf('t1', {
      state: 'TASK_STATE_COMPLETED',
      history: [said('ask'), agentMessage('t1', 'which?', 'q1'), agentMessage('t1', 'done', 'reply')],
    });
    const applied = await registry.applyAll([{ task: agentView }], ALICE);
    expect(applied?.history?.map((m) => m.messageId)).toEqual(['ask', 'q1', 'a1', 'reply']);
    expect(await registry.get('t1', ALICE.owner)).toEqual(applied);
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

  it('never takes a finished task back to running, by any write; an input-required one runs again', async () => {
    const registry = await open();
    const finished = taskOf('t1', { state: 'TASK_STATE_COMPLETED', history: [agentMessage('t1', 'done', 'final')] });
    await registry.put(finished, ALICE);
    // A late GetTask answer, a stream's last fold and a batch ending running: each is refused whole.
    await registry.put(taskOf('t1', { state: 'TASK_STATE_WORKING' }), ALICE);
    expect(await registry.apply(status('t1', 'TASK_STATE_SUBMITTED'), ALICE)).toBeUndefined();
    expect(await registry.applyAll([status('t1', 'TASK_STATE_FAILED'), status('t1', 'TASK_STATE_WORKING')], ALICE)).toBeUndefined();
    expect(await registry.get('t1', ALICE.owner)).toEqual(finished);
    expect((await registry.list({ status: 'TASK_STATE_WORKING' }, ALICE.owner)).tasks).toEqual([]);
    expect((await registry.list({ status: 'TASK_STATE_COMPLETED' }, ALICE.owner)).tasks.map((t) => t.id)).toEqual(['t1']);

    await registry.put(taskOf('t2', { state: 'TASK_STATE_INPUT_REQUIRED' }), ALICE);
    expect((await registry.apply(status('t2', 'TASK_STATE_WORKING'), ALICE))?.status.state).toBe('TASK_STATE_WORKING');
  });
}
