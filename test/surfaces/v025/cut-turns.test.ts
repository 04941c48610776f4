import { describe, expect, it } from 'vitest';
import type { AgentPort } from '../../../src/core/agent-port.js';
import { taskScoped } from '../../../src/core/task-scope.js';
import { A2AError, type Message, type Task } from '../../../src/model/index.js';
import type { CutTurnNote, CutTurnNotes } from '../../../src/surfaces/v025/cut-turn-notes.js';
import { cutTurnOf, watchedTurn } from '../../../src/surfaces/v025/cut-turns.js';
import type { V025FacadeDeps } from '../../../src/surfaces/v025/deps.js';
import { toldInWords } from '../../../src/surfaces/v025/errors.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/words.js';

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
    registry: { scopeOf: async (taskId) => (owners[taskId] ? { owner: owners[taskId], tenant: '' } : undefined) },
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
