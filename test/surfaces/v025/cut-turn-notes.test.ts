import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalCutTurnNotes, type CutTurnNote } from '../../../src/surfaces/v025/cut-turn-notes.js';

const note = (taskId: string): CutTurnNote => ({
  taskId,
  shown: {
    sent: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '规划一个VPC' }] },
    passed: ['第一段：开始规划。'],
    passedFiles: ['plan'],
    shownFiles: new Map([
      ['plan', [{ text: 'main.tf' }]],
      ['tail', undefined],
    ]),
  },
});

describe('the notes of cut turns, kept in persistence-dir under store: memory', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  const fresh = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-cut-notes-'));
    dirs.push(dir);
    return join(dir, 'state');
  };

  it('a note outlives the process: the next one reads what its user was shown, files and all', async () => {
    const dir = await fresh();
    const before = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    void before.note('alice', 'ctx-1', note('task-1'));
    await before.settled();
    const after = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    expect(await after.cut('alice', 'ctx-1')).toEqual(note('task-1'));
    expect(await after.cut('bob', 'ctx-1')).toBeUndefined();
  });

  it('forgets only the note that still names the task, and that for the next process too', async () => {
    const dir = await fresh();
    const notes = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    await notes.note('alice', 'ctx-1', note('task-2'));
    await notes.forget('alice', 'ctx-1', 'task-1');
    expect((await notes.cut('alice', 'ctx-1'))?.taskId).toBe('task-2');
    await notes.forget('alice', 'ctx-1', 'task-2');
    expect(await createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }).cut('alice', 'ctx-1')).toBeUndefined();
  });

  it('keeps at most `max` notes, each for the idle time', async () => {
    const notes = createLocalCutTurnNotes({ max: 2, idleTtlMs: 50, dir: await fresh() });
    for (const context of ['ctx-1', 'ctx-2', 'ctx-3']) await notes.note('alice', context, note(`task-${context}`));
    expect(await notes.cut('alice', 'ctx-1')).toBeUndefined();
    expect((await notes.cut('alice', 'ctx-3'))?.taskId).toBe('task-ctx-3');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await notes.cut('alice', 'ctx-3')).toBeUndefined();
  });
});
