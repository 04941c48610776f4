import { describe, expect, it } from 'vitest';
import type { AgentPort } from '../../../../src/core/agent-port.js';
import { taskScoped } from '../../../../src/core/task-scope.js';
import { A2AError, type Message, type Task } from '../../../../src/model/index.js';
import type { CutTurnNote, CutTurnNotes } from '../../../../src/surfaces/v025/notes/cut-turn-notes.js';
import { cutTurnOf } from '../../../../src/surfaces/v025/recovery/cut-turns.js';
import { watchedTurn } from '../../../../src/surfaces/v025/recovery/watched-turn.js';
import type { V025FacadeDeps } from '../../../../src/surfaces/v025/deps.js';
import { toldInWords } from '../../../../src/surfaces/v025/errors.js';
import { facadeWords } from '../../../../src/surfaces/v025/reply/words.js';

/** The notes written, in a store of the test's. */
function notesKept(): CutTurnNotes & { written: CutTurnNote[] } {
  const written: CutTurnNote[] = [];
  return {
    written,
    note: async (_principal, _contextId, cut) => void written.push(cut),
    cut: async () => undefined,
    forget: async () => undefined,
    settled: async () => undefined,
  };
}

const shutDown = (): AbortSignal => {
  const shutdown = new AbortController();
  shutdown.abort(A2AError.shuttingDown());
  return shutdown.signal;
};

const message = (taskId?: string): Message => ({ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '确认' }], ...(taskId ? { taskId } : {}) });
const zh = facadeWords('zh');

/** What the user reads of a turn the shutdown cut before its reply began (errors.ts tells a gateway failure in their words). */
const readAtCut = (turn: ReturnType<typeof watchedTurn>, shutdown: AbortSignal): string =>
  toldInWords(turn.toldAtCut(shutdown.reason, zh) as A2AError, zh).message;

describe('a turn the shutdown cut before its reply began', () => {
  it('its message never left the gateway: retrying is right, and nothing is noted', async () => {
    const notes = notesKept();
    const shutdown = shutDown();
    const turn = watchedTurn({ principal: 'alice', contextId: 'ctx-1' }, notes, shutdown, { sent: message('task-1') });
    expect(readAtCut(turn, shutdown)).toBe('网关正在关闭，请稍后重试');
    turn.end();
    expect(notes.written).toEqual([]);
  });

  it('its message was sent, following up a known task: the agent may be at work, and the next message shows where it stands', async () => {
    const notes = notesKept();
    const shutdown = shutDown();
    const turn = watchedTurn({ principal: 'alice', contextId: 'ctx-1' }, notes, shutdown, { sent: message('task-1') });
    turn.sent();
    expect(readAtCut(turn, shutdown)).toBe(zh.turnCutBeforeReply);
    turn.end();
    expect(notes.written.map((note) => note.taskId)).toEqual(['task-1']);
  });

  it('its message was sent to open a task whose id never came back: the user is told to ask about its progress', async () => {
    const notes = notesKept();
    const shutdown = shutDown();
    const turn = watchedTurn({ principal: 'alice', contextId: 'ctx-1' }, notes, shutdown, { sent: message() });
    turn.sent();
    expect(readAtCut(turn, shutdown)).toBe(zh.turnCutUnanswered);
    turn.end();
    expect(notes.written).toEqual([]);
  });

  it("another failure is the agent's or the gateway's own, told as it is", () => {
    const shutdown = shutDown();
    const turn = watchedTurn({ principal: 'alice', contextId: 'ctx-1' }, notesKept(), shutdown, { sent: message('task-1') });
    turn.sent();
    const refused = A2AError.invalidParams('no such option');
    expect(turn.toldAtCut(refused, zh)).toBe(refused);
  });
});

describe('the note of a cut turn, read once credentials are set (unknown tasks: not found)', () => {
  /** The agent has every task; the registry knows `bob-task` as bob's and has forgotten `forgotten` (a memory store's restart). */
  const agentTask = (id: string): Task => ({ id, contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } });
  const asked: string[] = [];
  const agent = { getTask: async ({ id }: { id: string }) => (asked.push(id), agentTask(id)) } as unknown as AgentPort;
  const owners: Record<string, string> = { 'bob-task': 'bob' };
  const port = taskScoped(agent, {
    registry: {
      scopeOf: async (taskId) => (owners[taskId] ? { owner: owners[taskId], tenant: '' } : undefined),
      scopedTask: async (taskId) => (owners[taskId] ? { owner: owners[taskId], tenant: '', task: agentTask(taskId) } : undefined),
    },
    settling: { settled: async () => undefined },
    unknownTasks: 'not-found',
  });
  const deps = { port } as unknown as V025FacadeDeps;
  /** Alice's note, naming `taskId`; whether it is forgotten. */
  const alicesNote = (taskId: string): CutTurnNotes & { forgotten: string[] } => {
    const forgotten: string[] = [];
    const shown = { sent: message(), passed: [] };
    return {
      forgotten,
      note: async () => undefined,
      cut: async (principal) => (principal === 'alice' ? { taskId, shown } : undefined),
      forget: async (_principal, _contextId, id) => void forgotten.push(id),
      settled: async () => undefined,
    };
  };
  const ctx = { principal: 'alice', signal: new AbortController().signal };
  const conversation = { principal: 'alice', contextId: 'ctx-1' };

  it('its own caller reads the rest of the task the registry forgot: the note, kept under that caller, vouches for it', async () => {
    const notes = alicesNote('forgotten');
    const cut = await cutTurnOf(conversation, notes, deps, ctx, message());
    expect(cut?.current.id).toBe('forgotten');
    expect(notes.forgotten).toEqual([]);
    // The caller's own context is not marked vouched for its later calls.
    expect('ownerVouched' in ctx).toBe(false);
  });

  it("a task recorded as another caller's is not reached through a note: the agent is not asked", async () => {
    asked.length = 0;
    const cut = await cutTurnOf(conversation, alicesNote('bob-task'), deps, ctx, message());
    expect(cut).toBeUndefined();
    expect(asked).toEqual([]);
  });
});

describe('the note of a turn its user stopped watching', () => {
  /** The task the turn follows up, as its user read it before. */
  const previous: Task = {
    id: 'task-1',
    contextId: 'ctx-1',
    status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'a-0', role: 'ROLE_AGENT', parts: [{ text: '要部署吗？' }] } },
  };
  /** A follow-up that said some words and wrote a file before its user stopped watching; `read`: how it was left (unwatched-turns.ts). */
  const leftMidTurn = (read?: 'nothing'): CutTurnNote => {
    const notes = notesKept();
    const turn = watchedTurn({ principal: 'alice', contextId: 'ctx-1' }, notes, undefined, { sent: message('task-1'), previous });
    turn.sent();
    const said = { messageId: 'a-1', role: 'ROLE_AGENT' as const, parts: [{ text: '正在部署' }] };
    turn.tracker.note({ statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING', message: said } } });
    turn.tracker.note({ artifactUpdate: { taskId: 'task-1', contextId: 'ctx-1', artifact: { artifactId: 'f-1', parts: [{ text: 'x' }] } } });
    turn.unwatched(read);
    turn.end();
    expect(notes.written).toHaveLength(1);
    return notes.written[0]!;
  };

  it('a message/stream hung up: its user read what was streamed, and the rest starts after it', () => {
    const { taskId, shown } = leftMidTurn();
    expect(taskId).toBe('task-1');
    expect(shown.passed).toEqual(['正在部署']);
    expect(shown.passedFiles).toEqual(['f-1']);
  });

  it('a message/send hung up: its one answer never came, so its user read nothing of the turn, only the task before it', () => {
    const { taskId, shown } = leftMidTurn('nothing');
    expect(taskId).toBe('task-1');
    expect(shown.previous).toEqual(previous);
    expect(shown.passed).toEqual([]);
    expect(shown.passedFiles ?? []).toEqual([]);
    expect(shown.shownFiles ?? new Map()).toEqual(new Map());
    expect(shown.lastStatus).toBeUndefined();
  });
});
