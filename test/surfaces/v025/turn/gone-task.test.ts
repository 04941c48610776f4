import { describe, expect, it } from 'vitest';
import { A2AError, type SendMessageRequest, type StreamResponse } from '../../../../src/model/index.js';
import { inNewTaskIfGone, isGoneTask } from '../../../../src/surfaces/v025/turn/gone-task.js';
import { collect } from '../../../support/collect.js';

const request: SendMessageRequest = { message: { messageId: 'm', role: 'ROLE_USER', contextId: 'C', taskId: 'OLD', parts: [{ text: 'hi' }] } };
const answer: StreamResponse = { task: { id: 'NEW', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } } };

describe('a follow-up the agent refuses because it no longer has the task', () => {
  it('knows the refusals of the agents it meets, and nothing else', () => {
    expect(isGoneTask(A2AError.taskNotFound('OLD'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32004, 'Task OLD is in a terminal state (3) and cannot be modified.'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32600, 'Task OLD is in a terminal state (completed) and cannot be modified.'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32602, 'Task OLD is in terminal state: 3'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32603, 'Internal error'), 'OLD')).toBe(false);
    expect(isGoneTask(new Error('Task not found'), 'OLD')).toBe(false);
    // A finished task that is not the one aimed at, or a failure that only mentions terminal states, is the turn's.
    expect(isGoneTask(new A2AError(-32602, 'Task OTHER is in terminal state: 3'), 'OLD')).toBe(false);
    expect(isGoneTask(new A2AError(-32603, 'Task OLD: a tool crashed in terminal state handling'), 'OLD')).toBe(false);
    expect(isGoneTask(new A2AError(-32005, 'Task OLD is in a terminal state; push is not supported'), 'OLD')).toBe(false);
  });

  it("goes on in a new task of the same context; any other failure is the turn's", async () => {
    const sent: SendMessageRequest[] = [];
    const run = (failure: A2AError) =>
      async function* (asked: SendMessageRequest): AsyncGenerator<StreamResponse> {
        sent.push(asked);
        if (asked.message.taskId) throw failure;
        yield answer;
      };
    expect(await collect(inNewTaskIfGone(request, run(A2AError.taskNotFound('OLD'))))).toEqual([answer]);
    expect(sent.map((asked) => [asked.message.taskId, asked.message.contextId])).toEqual([
      ['OLD', 'C'],
      [undefined, 'C'],
    ]);
    await expect(collect(inNewTaskIfGone(request, run(A2AError.internal())))).rejects.toMatchObject({ code: -32603 });
  });
});

describe('a turn iac-code fails at once because it evicted the idle conversation', () => {
  const status = (taskId: string, contextId: string, state: string, text?: string): StreamResponse =>
    ({
      statusUpdate: {
        taskId,
        contextId,
        status: { state, ...(text ? { message: { messageId: `${taskId}-4`, role: 'ROLE_AGENT', parts: [{ text }] } } : {}) },
      },
    }) as StreamResponse;
  const opened = (taskId: string, contextId: string): StreamResponse => ({
    task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } },
  });

  /** An iac-code that forgot `forgotten` tasks and refuses `refused` contexts; every other message is answered. */
  function evicting(forgotten: Set<string>, refused: Set<string>) {
    const sent: SendMessageRequest[] = [];
    const run = async function* (asked: SendMessageRequest): AsyncGenerator<StreamResponse> {
      sent.push(asked);
      const { taskId, contextId = 'none' } = asked.message;
      if (taskId && forgotten.has(taskId)) return yield status(taskId, contextId, 'TASK_STATE_FAILED', 'A2A task expired');
      const id = taskId ?? `T${sent.length}`;
      if (!taskId) yield opened(id, contextId);
      if (refused.has(contextId)) return yield status(id, contextId, 'TASK_STATE_FAILED', 'ValueError: A2A context expired');
      yield status(id, contextId, 'TASK_STATE_INPUT_REQUIRED', 'answered');
    };
    return { sent, run };
  }
  const ids = (sent: SendMessageRequest[]) => sent.map((asked) => [asked.message.taskId, asked.message.contextId]);

  it('a forgotten task: the words go again as a new task of the context, nothing of the refusal shown', async () => {
    const { sent, run } = evicting(new Set(['OLD']), new Set());
    const events = await collect(inNewTaskIfGone(request, run));
    expect(events).toEqual([opened('T2', 'C'), status('T2', 'C', 'TASK_STATE_INPUT_REQUIRED', 'answered')]);
    expect(ids(sent)).toEqual([
      ['OLD', 'C'],
      [undefined, 'C'],
    ]);
    expect(sent[1]!.message.parts).toEqual(request.message.parts);
  });

  it('a refused context: a fresh one, after the task (bounded: an agent that refuses every id fails the turn)', async () => {
    const { sent, run } = evicting(new Set(['OLD']), new Set(['C']));
    const events = await collect(inNewTaskIfGone(request, run));
    expect(ids(sent).slice(0, 2)).toEqual([
      ['OLD', 'C'],
      [undefined, 'C'],
    ]);
    const fresh = sent[2]!.message.contextId!;
    expect(fresh).not.toBe('C');
    expect(events.at(-1)).toEqual(status('T3', fresh, 'TASK_STATE_INPUT_REQUIRED', 'answered'));
    expect(events.some((event) => JSON.stringify(event).includes('expired'))).toBe(false);

    const always = evicting(new Set(['OLD']), { has: () => true } as unknown as Set<string>);
    const last = (await collect(inNewTaskIfGone(request, always.run))).at(-1);
    expect(always.sent).toHaveLength(3);
    expect(JSON.stringify(last)).toContain('A2A context expired');
  });

  it('the task a blocking call answered, failed the same way, goes again too', async () => {
    const sent: SendMessageRequest[] = [];
    const run = async function* (asked: SendMessageRequest): AsyncGenerator<StreamResponse> {
      sent.push(asked);
      const failed = { state: 'TASK_STATE_FAILED', message: { messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'A2A task expired' }] } };
      yield asked.message.taskId ? ({ task: { id: 'OLD', contextId: 'C', status: failed } } as StreamResponse) : answer;
    };
    expect(await collect(inNewTaskIfGone(request, run))).toEqual([answer]);
    expect(sent).toHaveLength(2);
  });

  it("a new task's failure that only reads alike, or another failure, is the turn's own", async () => {
    const unaimed: SendMessageRequest = { message: { ...request.message, taskId: undefined } };
    // Not aimed at a task: "A2A task expired" on it cannot be the facade's doing.
    const failing = async function* (): AsyncGenerator<StreamResponse> {
      yield opened('N', 'C');
      yield status('N', 'C', 'TASK_STATE_FAILED', 'A2A task expired');
    };
    expect(await collect(inNewTaskIfGone(unaimed, failing))).toHaveLength(2);
    const other = async function* (): AsyncGenerator<StreamResponse> {
      yield status('OLD', 'C', 'TASK_STATE_FAILED', 'A2A task expired because the model said so');
    };
    expect(await collect(inNewTaskIfGone(request, other))).toHaveLength(1);
  });
});

describe('a turn iac-code fails at once because its context is bound to another workspace', () => {
  const WRONG_WORKSPACE = 'ValueError: A2A context belongs to a different workspace';
  const failed = (taskId: string, contextId: string): StreamResponse => ({
    statusUpdate: {
      taskId,
      contextId,
      status: { state: 'TASK_STATE_FAILED', message: { messageId: `${taskId}-4`, role: 'ROLE_AGENT', parts: [{ text: WRONG_WORKSPACE }] } },
    },
  });
  const answered = (taskId: string, contextId: string): StreamResponse => ({
    statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
  });

  /** An iac-code whose context C is bound to another folder: every turn in it fails, a new task after its opening. */
  function bound() {
    const sent: SendMessageRequest[] = [];
    const run = async function* (asked: SendMessageRequest): AsyncGenerator<StreamResponse> {
      sent.push(asked);
      const { taskId, contextId = 'none' } = asked.message;
      const id = taskId ?? `T${sent.length}`;
      if (!taskId) yield { task: { id, contextId, status: { state: 'TASK_STATE_SUBMITTED' } } };
      yield contextId === 'C' ? failed(id, contextId) : answered(id, contextId);
    };
    return { sent, run };
  }

  it("a new task of the conversation (no task aimed at): the words go again in a fresh context, noted as the conversation's", async () => {
    const { sent, run } = bound();
    const moves: string[] = [];
    const unaimed: SendMessageRequest = { message: { ...request.message, taskId: undefined } };
    const events = await collect(inNewTaskIfGone(unaimed, run, { movedTo: async (contextId) => void moves.push(contextId) }));
    const fresh = sent[1]!.message.contextId!;
    expect(sent.map((asked) => [asked.message.taskId, asked.message.contextId === 'C'])).toEqual([
      [undefined, true],
      [undefined, false],
    ]);
    expect(moves).toEqual([fresh]);
    expect(events).toEqual([{ task: { id: 'T2', contextId: fresh, status: { state: 'TASK_STATE_SUBMITTED' } } }, answered('T2', fresh)]);
  });

  it('the waiting task the facade aimed at: in a fresh context at once, not first as a new task of the refused one', async () => {
    const { sent, run } = bound();
    const events = await collect(inNewTaskIfGone(request, run));
    expect(sent).toHaveLength(2);
    expect(sent[1]!.message.taskId).toBeUndefined();
    expect(sent[1]!.message.contextId).not.toBe('C');
    expect(JSON.stringify(events)).not.toContain('workspace');
  });
});

describe('a turn held back while it may still be refused', () => {
  it("shows an agent's opening once the agent goes quiet after it: held only for the event right after", async () => {
    let release!: () => void;
    const quiet = new Promise<void>((resolve) => (release = resolve));
    const opening: StreamResponse = { task: { id: 'N', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } };
    const run = async function* (): AsyncGenerator<StreamResponse> {
      yield opening;
      await quiet;
      yield answer;
    };
    const events = inNewTaskIfGone({ message: { ...request.message, taskId: undefined } }, run);
    const started = Date.now();
    expect((await events.next()).value).toEqual(opening);
    expect(Date.now() - started).toBeLessThan(3000);
    release();
    expect((await events.next()).value).toEqual(answer);
    expect((await events.next()).done).toBe(true);
  });
});

describe('an agent that streams its turn as task snapshots', () => {
  it('has its first snapshot shown once the second comes: one opening is held, not each', async () => {
    let pulled = 0;
    const run = async function* (): AsyncGenerator<StreamResponse> {
      for (; pulled < 20;) {
        pulled++;
        yield {
          task: {
            id: 'OLD',
            contextId: 'C',
            status: { state: 'TASK_STATE_WORKING' },
            artifacts: [{ artifactId: 'a', parts: [{ text: `part ${pulled}` }] }],
          },
        };
      }
      yield { task: { id: 'OLD', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } } };
    };
    const events = inNewTaskIfGone(request, run)[Symbol.asyncIterator]();
    const first = await events.next();
    expect(first.value).toMatchObject({ task: { artifacts: [{ parts: [{ text: 'part 1' }] }] } });
    // Decided on the snapshot after it: the agent's later snapshots were not read ahead to decide.
    expect(pulled).toBe(2);
    await events.return?.();
  });
});

describe('a turn its reader lets go of, or that fails after its opening', () => {
  const opening: StreamResponse = { task: { id: 'OLD', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } };

  it('sends nothing when let go of before its first read', async () => {
    let sent = 0;
    const run = async function* (): AsyncGenerator<StreamResponse> {
      sent++;
      yield answer;
    };
    const events = inNewTaskIfGone(request, run)[Symbol.asyncIterator]();
    expect(await events.return?.()).toMatchObject({ done: true });
    expect(sent).toBe(0);
    expect((await events.next()).done).toBe(true);
  });

  it("shows the opening, then the agent's failure right after it, as the turn's own", async () => {
    const sent: SendMessageRequest[] = [];
    const run = async function* (asked: SendMessageRequest): AsyncGenerator<StreamResponse> {
      sent.push(asked);
      yield opening;
      throw A2AError.taskNotFound('OLD');
    };
    const events = inNewTaskIfGone(request, run)[Symbol.asyncIterator]();
    expect((await events.next()).value).toEqual(opening);
    await expect(events.next()).rejects.toMatchObject({ code: A2AError.taskNotFound('OLD').code });
    expect(sent).toHaveLength(1);
  });
});
