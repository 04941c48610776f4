import { join } from 'node:path';
import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Message, Task } from '../../../../src/model/index.js';
import { readSnapshot } from '../../../../src/snapshot-file.js';
import { createLocalCutTurnNotes, type CutTurnNote } from '../../../../src/surfaces/v025/notes/cut-turn-notes.js';
import { messageDigest } from '../../../../src/surfaces/v025/turn/repeated-message.js';
import { restCursor, restEvents, type TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';
import { tempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';

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

const tempDir = tempDirs('a2a-bridge-cut-notes-');

/** A `persistence-dir` of the test's own (the store makes the folder), removed after it. */
const fresh = async (): Promise<string> => join(await tempDir(), 'state');

describe('the notes of cut turns, kept in persistence-dir under store: memory', () => {
  it('a note outlives the process: the next one reads what its user was shown, files and all', async () => {
    const dir = await fresh();
    const before = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    void before.note('alice', 'ctx-1', note('task-1'));
    await before.settled();
    const after = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    // The message sent is kept for its id and task, and what it asked as a digest (repeated-message.ts): its parts
    // (an image, a long text) are not read again.
    const kept = note('task-1');
    const sentDigest = messageDigest(kept.shown.sent);
    expect(await after.cut('alice', 'ctx-1')).toEqual({ ...kept, shown: { ...kept.shown, sent: { ...kept.shown.sent, parts: [] }, sentDigest } });
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
    // A second, not 50 ms: a loaded host's stall while the notes were saved outlasted an idle time that short.
    const notes = createLocalCutTurnNotes({ max: 2, idleTtlMs: 1_000, dir: await fresh() });
    for (const context of ['ctx-1', 'ctx-2', 'ctx-3']) await notes.note('alice', context, note(`task-${context}`));
    expect(await notes.cut('alice', 'ctx-1')).toBeUndefined();
    expect((await notes.cut('alice', 'ctx-3'))?.taskId).toBe('task-ctx-3');
    await waitUntil(async () => (await notes.cut('alice', 'ctx-3')) === undefined);
  });

  it("a long task's note keeps what the rest needs, not the task's history: the next message reads the same rest", async () => {
    const dir = await fresh();
    const said = (role: Message['role'], text: string, n: number): Message => ({ messageId: `${role}-${n}`, role, parts: [{ text }] });
    // A task of many turns: thousands of streamed pieces in its history, as iac-code's.
    const history = Array.from({ length: 3_000 }, (_, n) => said(n % 10 === 0 ? 'ROLE_USER' : 'ROLE_AGENT', `第 ${n} 段：${'资源'.repeat(40)}`, n));
    const question = said('ROLE_AGENT', '要部署到哪个地域？', 3_000);
    const previous: Task = {
      id: 'task-long',
      contextId: 'ctx-long',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question },
      history,
      artifacts: [{ artifactId: 'plan', parts: [{ text: 'main.tf' }] }],
    };
    const sent: Message = { messageId: 'answer', role: 'ROLE_USER', taskId: 'task-long', parts: [{ text: '杭州' }] };
    const shown: TurnSoFar = { sent, previous, passed: ['好的，部署到杭州。'] };
    // The agent went on after the cut: its task holds the turn's words (not the message it was sent, as iac-code).
    const now: Task = {
      id: 'task-long',
      contextId: 'ctx-long',
      status: { state: 'TASK_STATE_COMPLETED', message: said('ROLE_AGENT', '部署完成。', 3_003) },
      history: [...history, question, said('ROLE_AGENT', '好的，部署到杭州。', 3_001), said('ROLE_AGENT', 'VPC 已创建。', 3_002)],
      artifacts: previous.artifacts!,
    };
    const notes = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    await notes.note('alice', 'ctx-long', { taskId: 'task-long', shown });
    // What the note put on disk: its line in the journal (the snapshot is rewritten only by a compaction).
    expect((await readFile(join(dir, 'facade_cut_turns.jsonl'))).length).toBeLessThan(2_000);
    const read = (await createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }).cut('alice', 'ctx-long'))!.shown;
    const rest = (turn: TurnSoFar) => restEvents(now, restCursor(now, turn), turn, turn.previous?.artifacts).events;
    const texts = rest(read).map((event) => ('statusUpdate' in event ? event.statusUpdate.status.message?.parts[0]?.text : undefined));
    expect(texts).toEqual(['VPC 已创建。', '部署完成。']);
    expect(rest(read)).toEqual(rest(shown));
  });

  it('a note the version before wrote, the task before whole (a rollout reads it): read as it was', async () => {
    const dir = await fresh();
    const previous: Task = { id: 'task-old', contextId: 'ctx-old', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, history: [] };
    const shown = { sent: { messageId: 'm-1', role: 'ROLE_USER', parts: [] }, previous, passed: ['第一段'] };
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'facade_cut_turns.json'), JSON.stringify([{ key: '5:alice:ctx-old', note: { taskId: 'task-old', shown } }]));
    expect((await createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }).cut('alice', 'ctx-old'))?.shown).toEqual(shown);
  });

  it('a note of the first slim release, the task before slim in `previous`: read as the task it kept', async () => {
    const dir = await fresh();
    const question: Message = { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: '确认部署吗？' }] };
    const task = { id: 'task-slim', contextId: 'ctx-slim', status: { state: 'TASK_STATE_INPUT_REQUIRED' } };
    const shown = { sent: { messageId: 'm-1', role: 'ROLE_USER', parts: [] }, previous: { task, agentMessages: 2, last: question }, passed: [] };
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'facade_cut_turns.json'), JSON.stringify([{ key: '5:alice:ctx-slim', note: { taskId: 'task-slim', shown } }]));
    const previous = (await createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }).cut('alice', 'ctx-slim'))?.shown.previous;
    expect(previous?.history?.map((message) => message.role)).toEqual(['ROLE_AGENT', 'ROLE_AGENT']);
    expect(previous?.history?.at(-1)).toEqual(question);
  });
});

describe('a hang-up costs its own note, not a rewrite of every note held (facade_cut_turns.jsonl beside the snapshot)', () => {
  const open = (dir: string, logger?: { warn(fields: object, message: string): void }) =>
    createLocalCutTurnNotes({ max: 100, idleTtlMs: 0, dir, ...(logger ? { logger } : {}) });
  const taskOf = async (dir: string, contextId: string) => (await open(dir).cut('alice', contextId))?.taskId;
  /** The journal's lines, its header (the snapshot they follow) first. */
  const journalLines = async (dir: string) => (await readFile(join(dir, 'facade_cut_turns.jsonl'), 'utf8')).split('\n').filter(Boolean);
  const changeLines = async (dir: string) => (await journalLines(dir)).slice(1);

  it('a note and a forget each append one line and leave the snapshot as it was; the next process reads both', async () => {
    const dir = await fresh();
    const before = open(dir);
    for (const context of ['ctx-1', 'ctx-2', 'ctx-3']) await before.note('alice', context, note(`task-${context}`));
    await before.settled();
    const snapshot = join(dir, 'facade_cut_turns.json');
    const [bytes, { mtimeMs }] = [await readFile(snapshot), await stat(snapshot)];
    await before.note('alice', 'ctx-4', note('task-ctx-4'));
    await before.forget('alice', 'ctx-1', 'task-ctx-1');
    expect(await readFile(snapshot)).toEqual(bytes);
    expect((await stat(snapshot)).mtimeMs).toBe(mtimeMs);
    expect(await changeLines(dir)).toHaveLength(2);
    expect(await taskOf(dir, 'ctx-1')).toBeUndefined();
    expect(await taskOf(dir, 'ctx-2')).toBe('task-ctx-2');
    expect(await taskOf(dir, 'ctx-4')).toBe('task-ctx-4');
  });

  it('a note set again, forgotten, or past `max` reads in the next process as it did in the one that wrote it', async () => {
    const dir = await fresh();
    const notes = createLocalCutTurnNotes({ max: 2, idleTtlMs: 0, dir });
    await notes.note('alice', 'ctx-1', note('task-1'));
    await notes.note('alice', 'ctx-2', note('task-2'));
    await notes.note('alice', 'ctx-1', note('task-1b'));
    await notes.note('alice', 'ctx-3', note('task-3'));
    await notes.forget('alice', 'ctx-3', 'task-3');
    // ctx-2, the oldest set, went for ctx-3; ctx-3 was forgotten: ctx-1's latest note alone is left.
    const next = createLocalCutTurnNotes({ max: 2, idleTtlMs: 0, dir });
    expect((await next.cut('alice', 'ctx-1'))?.taskId).toBe('task-1b');
    expect(await next.cut('alice', 'ctx-2')).toBeUndefined();
    expect(await next.cut('alice', 'ctx-3')).toBeUndefined();
  });

  it('a line a crash cut short is left out without a word; the notes before it are read, and the next note after it', async () => {
    const dir = await fresh();
    const before = open(dir);
    await before.note('alice', 'ctx-1', note('task-1'));
    await before.note('alice', 'ctx-2', note('task-2'));
    const whole = (await changeLines(dir))[1]!;
    await appendFile(join(dir, 'facade_cut_turns.jsonl'), whole.slice(0, 40));
    const warnings: string[] = [];
    const after = open(dir, { warn: (_fields, message) => void warnings.push(message) });
    expect((await after.cut('alice', 'ctx-1'))?.taskId).toBe('task-1');
    expect((await after.cut('alice', 'ctx-2'))?.taskId).toBe('task-2');
    await after.note('alice', 'ctx-3', note('task-3'));
    expect(warnings).toEqual([]);
    expect(await taskOf(dir, 'ctx-3')).toBe('task-3');
  });

  it('a damaged line before the last is skipped and told, never failing the start: the lines around it are read', async () => {
    const dir = await fresh();
    const before = open(dir);
    for (const context of ['ctx-1', 'ctx-2', 'ctx-3']) await before.note('alice', context, note(`task-${context}`));
    const [header, first, second, third] = await journalLines(dir);
    await writeFile(join(dir, 'facade_cut_turns.jsonl'), `${header}\n${first}\n${second!.slice(0, 30)}\n${third}\n`);
    const warned: object[] = [];
    const after = open(dir, { warn: (fields) => void warned.push(fields) });
    expect((await after.cut('alice', 'ctx-1'))?.taskId).toBe('task-ctx-1');
    expect(await after.cut('alice', 'ctx-2')).toBeUndefined();
    expect((await after.cut('alice', 'ctx-3'))?.taskId).toBe('task-ctx-3');
    expect(warned).toHaveLength(1);
    // It names the file and how many lines, never what they held.
    expect(String((warned[0] as { err: Error }).err.message)).toMatch(/facade_cut_turns\.jsonl: 1 damaged line/);
    expect(String((warned[0] as { err: Error }).err.message)).not.toContain('task-');
  });

  it('past the threshold the journal is folded into the snapshot, losing nothing', async () => {
    const dir = await fresh();
    const notes = open(dir);
    // 1,200 hang-ups over five conversations: many lines, five notes.
    await Promise.all(Array.from({ length: 1_200 }, (_, n) => notes.note('alice', `ctx-${n % 5}`, note(`task-${n}`))));
    // Folded after the lines are written, without waiting for the store to close (settled()).
    await waitUntil(async () => (await changeLines(dir)).length < 1_200);
    expect(await readSnapshot(join(dir, 'facade_cut_turns.json'))).toHaveLength(5);
    for (let n = 1_195; n < 1_200; n++) expect(await taskOf(dir, `ctx-${n % 5}`)).toBe(`task-${n}`);
  });

  it('a crash after the snapshot was written and before the journal was emptied: the next process reads the same notes', async () => {
    const dir = await fresh();
    const notes = open(dir);
    await notes.note('alice', 'ctx-1', note('task-1'));
    await notes.note('alice', 'ctx-2', note('task-2'));
    await notes.note('alice', 'ctx-1', note('task-1b'));
    await notes.forget('alice', 'ctx-2', 'task-2');
    await notes.note('alice', 'ctx-3', note('task-3'));
    const journal = await readFile(join(dir, 'facade_cut_turns.jsonl'));
    await notes.settled();
    expect(await readSnapshot(join(dir, 'facade_cut_turns.json'))).toHaveLength(2);
    // The crash: the compaction's snapshot is in place, the journal it emptied is back as it was.
    await writeFile(join(dir, 'facade_cut_turns.jsonl'), journal);
    expect(await taskOf(dir, 'ctx-1')).toBe('task-1b');
    expect(await taskOf(dir, 'ctx-2')).toBeUndefined();
    expect(await taskOf(dir, 'ctx-3')).toBe('task-3');
  });

  it('a snapshot the release before rewrote since (a rollback after a crash) is read as it wrote it, not as the journal before it said', async () => {
    const dir = await fresh();
    const crashed = open(dir);
    await crashed.note('alice', 'ctx-1', note('task-1'));
    await crashed.note('alice', 'ctx-2', note('task-2'));
    // The process ends without closing its store: the notes stay in the journal. The release rolled back to reads only
    // the snapshot, then writes it whole with the note of ctx-2's next cut turn.
    const stored = JSON.parse((await changeLines(dir))[1]!) as { key: string; note: { taskId: string } };
    await writeFile(join(dir, 'facade_cut_turns.json'), JSON.stringify([{ ...stored, note: { ...stored.note, taskId: 'task-9' } }]));
    // Rolled forward again: the journal's lines came before that snapshot and are not replayed onto it.
    expect(await taskOf(dir, 'ctx-2')).toBe('task-9');
    expect(await taskOf(dir, 'ctx-1')).toBeUndefined();
  });

  it('a file an older release wrote, with no journal beside it, is read; a note after it goes to the journal', async () => {
    const dir = await fresh();
    const shown = { sent: { messageId: 'm-1', role: 'ROLE_USER', parts: [] }, passed: ['第一段'] };
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'facade_cut_turns.json'), JSON.stringify([{ key: '5:alice:ctx-old', note: { taskId: 'task-old', shown } }]));
    const notes = open(dir);
    expect((await notes.cut('alice', 'ctx-old'))?.taskId).toBe('task-old');
    await notes.note('alice', 'ctx-new', note('task-new'));
    expect(await taskOf(dir, 'ctx-old')).toBe('task-old');
    expect(await taskOf(dir, 'ctx-new')).toBe('task-new');
  });

  it('the files are for the gateway alone: 0600, in a 0700 folder', async () => {
    const dir = await fresh();
    const notes = open(dir);
    await notes.note('alice', 'ctx-1', note('task-1'));
    await notes.settled();
    await notes.note('alice', 'ctx-2', note('task-2'));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'facade_cut_turns.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'facade_cut_turns.jsonl'))).mode & 0o777).toBe(0o600);
  });
});

describe('a note the current release writes, read by the release before (a rollback, a replica not yet rolled)', () => {
  it("reads no task before in it, and finds the follow-up's rest after the question it answered", async () => {
    const dir = await fresh();
    const agent = (text: string, n: number): Message => ({ messageId: `agent-${n}`, role: 'ROLE_AGENT', parts: [{ text }] });
    const question = agent('确认部署吗？', 1);
    const previous: Task = {
      id: 'T1',
      contextId: 'C1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question },
      history: [{ messageId: 'u1', role: 'ROLE_USER', parts: [{ text: '开始' }] }],
    };
    const sent: Message = { messageId: 'u2', role: 'ROLE_USER', parts: [{ text: '确认' }], taskId: 'T1', contextId: 'C1' };
    const notes = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    await notes.note('alice', 'C1', { taskId: 'T1', shown: { sent, previous, passed: [] } });
    // The store closes, as a rollout's shutdown closes it: the release before reads only the snapshot, not the journal.
    await notes.settled();
    // The release before reads `shown.previous` as a whole task (a slim one broke it) and spreads the other fields:
    // the file must hold the task before under `kept` only, so that release reads the note with no task before.
    const stored = await readSnapshot<{ note: { taskId: string; shown: Record<string, unknown> } }>(join(dir, 'facade_cut_turns.json'));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.note.shown).not.toHaveProperty('previous');
    expect(stored[0]!.note.shown).toHaveProperty('kept');
    const current = await createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }).cut('alice', 'C1');
    const read = current && { ...current, shown: { ...current.shown, previous: undefined } };
    // The agent went on: its task holds the question, then the turn's words (not the message sent, as iac-code).
    const now: Task = {
      ...previous,
      status: { state: 'TASK_STATE_COMPLETED', message: agent('部署完成。', 3) },
      history: [...previous.history!, question, { messageId: 'u3', role: 'ROLE_USER', parts: [{ text: '确认' }] }, agent('正在部署。', 2)],
    };
    const texts = restEvents(now, restCursor(now, read!.shown), read!.shown, undefined).events.map((event) =>
      'statusUpdate' in event ? event.statusUpdate.status.message?.parts[0]?.text : undefined,
    );
    expect(texts).toEqual(['正在部署。', '部署完成。']);
    // The current release reads its own note with the task before, as it was noted.
    expect((await createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }).cut('alice', 'C1'))?.shown.previous?.status.state).toBe(
      'TASK_STATE_INPUT_REQUIRED',
    );
  });
});
