import { describe, expect, it } from 'vitest';
import { createContextLanes } from '../../../../src/core/context-lanes.js';
import type { TaskRegistry } from '../../../../src/core/task-registry/types.js';
import type { SendMessageRequest, Task, TaskState } from '../../../../src/model/index.js';
import { createContinuations, LET_GO_ELSEWHERE_MS, LET_GO_MS } from '../../../../src/surfaces/v025/turn/continuation.js';

function registryWith(latest: Task | undefined, seen: string[] = []): TaskRegistry {
  return {
    latestInContext: async (contextId: string, owner: string) => {
      seen.push(`${owner}|${contextId}`);
      return latest ? { task: latest, tenant: '' } : undefined;
    },
    get: async (taskId: string) => (taskId === latest?.id ? latest : undefined),
  } as unknown as TaskRegistry;
}

const task = (state: TaskState): Task => ({ id: 'task-7', contextId: 'ctx', status: { state } });
const request = (message: Partial<SendMessageRequest['message']> = {}): SendMessageRequest => ({
  message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: 'ctx', ...message },
});

describe('follow-ups on a context (createContinuations)', () => {
  it('aims the message at the paused task only while it is INPUT_REQUIRED, looked up for the caller', async () => {
    const seen: string[] = [];
    const paused = await createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED'), seen)).begin(request(), 'api-key:X-API-KEY');
    expect(paused.request.message.taskId).toBe('task-7');
    expect(seen).toEqual(['api-key:X-API-KEY|ctx']);
    for (const state of ['TASK_STATE_COMPLETED', 'TASK_STATE_WORKING', 'TASK_STATE_FAILED'] as const) {
      const turn = await createContinuations(registryWith(task(state))).begin(request(), '');
      expect(turn.request.message.taskId).toBeUndefined();
    }
  });

  it("leaves a caller's own taskId and messages without a context alone", async () => {
    const continuations = createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED')));
    expect((await continuations.begin(request({ taskId: 'mine' }), '')).request.message.taskId).toBe('mine');
    expect((await continuations.begin(request({ contextId: undefined }), '')).request.message.taskId).toBeUndefined();
  });

  it("a message naming a known task continues it: that task is the turn's previous state", async () => {
    const continuations = createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED')));
    expect((await continuations.begin(request({ taskId: 'task-7' }), '')).previous?.id).toBe('task-7');
    expect((await continuations.begin(request({ taskId: 'task-7', contextId: undefined }), '')).previous?.id).toBe('task-7');
    expect((await continuations.begin(request({ taskId: 'other' }), '')).previous).toBeUndefined();
  });

  it('while a turn runs on the context, a second message keeps only the contextId (the core then rejects it as busy)', async () => {
    const continuations = createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED')));
    const [first, second] = await Promise.all([continuations.begin(request(), ''), continuations.begin(request(), '')]);
    expect(first.request.message.taskId).toBe('task-7');
    expect(second.request.message.taskId).toBeUndefined();
    second.end();
    const third = await continuations.begin(request(), '');
    expect(third.request.message.taskId).toBeUndefined();
    first.end();
    first.end(); // idempotent: must not free the context third still holds
    const fourth = await continuations.begin(request(), '');
    expect(fourth.request.message.taskId).toBeUndefined();
    third.end();
    fourth.end();
    expect((await continuations.begin(request(), '')).request.message.taskId).toBe('task-7');
  });

  it('another principal on the same contextId is another conversation', async () => {
    const continuations = createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED')));
    await continuations.begin(request(), 'a');
    expect((await continuations.begin(request(), 'b')).request.message.taskId).toBe('task-7');
  });

  it('a task the registry last saw running is asked of the agent: waiting for input there, the follow-up continues it', async () => {
    const asked: string[] = [];
    const lookup = (state: TaskState | 'fails') => async (taskId: string) => {
      asked.push(taskId);
      if (state === 'fails') throw new Error('agent unreachable');
      return withHistory(task(state));
    };
    const withHistory = (found: Task): Task => ({ ...found, history: [{ messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'Which region?' }] }] });
    const working = createContinuations(registryWith(task('TASK_STATE_WORKING')));
    const waiting = await working.begin(request(), 'p', lookup('TASK_STATE_INPUT_REQUIRED'));
    expect(waiting.request.message.taskId).toBe('task-7');
    expect(waiting.previous?.history?.[0]?.parts[0]?.text).toBe('Which region?');
    waiting.end();
    for (const state of ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'fails'] as const) {
      const turn = await working.begin(request(), 'p', lookup(state));
      expect(turn.request.message.taskId).toBeUndefined();
      turn.end();
    }
    expect(asked).toEqual(['task-7', 'task-7', 'task-7', 'task-7']);
    // Only a task last seen running is asked about.
    for (const state of ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED'] as const) {
      (await createContinuations(registryWith(task(state))).begin(request(), 'p', lookup('TASK_STATE_WORKING'))).end();
    }
    expect(asked).toHaveLength(4);
  });

  it("a message waits for the conversation's turn still running here to end, at most LET_GO_MS: its caller may have just left", async () => {
    const continuations = createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED')));
    const elapsed = async (contextId: string | undefined, principal = 'p'): Promise<number> => {
      const started = performance.now();
      await continuations.previousEnded(principal, contextId);
      return performance.now() - started;
    };
    // "At once" and "then" are told by order, not by time (a busy host holds a 100 ms timer for a second and more):
    // what is not waited for settles within its own microtasks, before any timer, LET_GO_MS's included.
    // None running: at once.
    expect(await settlesAtOnce(continuations.previousEnded('p', 'ctx'))).toBe(true);
    const [first, second] = [await continuations.begin(request(), 'p'), await continuations.begin(request(), 'p')];
    // Its caller left: the turn ends a moment later, and the message goes on then (once both of its turns
    // ended), not at the bound.
    const waiting = continuations.previousEnded('p', 'ctx');
    first.end();
    expect(await settlesAtOnce(waiting)).toBe(false);
    second.end();
    expect(await settlesAtOnce(waiting)).toBe(true);
    // Another caller's conversation, or the same context of another caller, is not waited for.
    const third = await continuations.begin(request(), 'p');
    expect(await settlesAtOnce(continuations.previousEnded('p', 'other'))).toBe(true);
    expect(await settlesAtOnce(continuations.previousEnded('q', 'ctx'))).toBe(true);
    expect(await settlesAtOnce(continuations.previousEnded('p', undefined))).toBe(true);
    // A turn still watched does not end: the message goes on at the bound, to be refused as busy as before.
    expect(await elapsed('ctx')).toBeGreaterThanOrEqual(LET_GO_MS - 5);
    third.end();
  });

  it("says a turn still running at the wait's end holds the lane, so the message is refused rather than race for it", async () => {
    const lanes = createContextLanes();
    const continuations = createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED')), (contextId, _principal, withinMs) =>
      lanes.letGo(contextId, withinMs),
    );
    expect(await continuations.previousEnded('p', 'ctx')).toBe('free');
    // Another replica's turn holds the lane past the wait.
    const elsewhere = await lanes.tryAcquire('ctx');
    expect(await continuations.previousEnded('p', 'ctx')).toBe('held');
    await elsewhere!.release();

    // A turn here, its lane held: its caller left (it ends within the wait), or it still runs at the wait's end.
    const here = await continuations.begin(request(), 'p');
    const lane = await lanes.tryAcquire('ctx');
    const waiting = continuations.previousEnded('p', 'ctx');
    here.end();
    expect(await waiting).toBe('let-go');
    const still = await continuations.begin(request(), 'p');
    expect(await continuations.previousEnded('p', 'ctx')).toBe('held');
    // Paused on a question, its stream open: a message naming its task answers it, and is let in.
    lane!.bindTask('task-7');
    expect(await continuations.previousEnded('p', 'ctx')).toBe('free');
    // Its lane let go, its end still unwinding here.
    await lane!.release();
    expect(await continuations.previousEnded('p', 'ctx')).toBe('free');
    still.end();
  });

  it('a turn still watched here is waited for LET_GO_MS in all, not the longer wait for a turn on another replica', async () => {
    const lanes = createContextLanes();
    const bounds: number[] = [];
    const continuations = createContinuations(registryWith(task('TASK_STATE_INPUT_REQUIRED')), (contextId, _principal, withinMs) => {
      bounds.push(withinMs);
      return lanes.letGo(contextId, withinMs);
    });
    // Told by the bound each wait is given, not by the clock: a loaded host stretches both alike.
    const elsewhere = await lanes.tryAcquire('ctx');
    expect(await continuations.previousEnded('p', 'ctx')).toBe('held');
    expect(bounds).toEqual([LET_GO_ELSEWHERE_MS]);
    await elsewhere!.release();
    const here = await continuations.begin(request(), 'p');
    const lane = await lanes.tryAcquire('ctx');
    expect(await continuations.previousEnded('p', 'ctx')).toBe('held');
    expect(bounds).toEqual([LET_GO_ELSEWHERE_MS, LET_GO_MS]);
    await lane!.release();
    here.end();
  });
});

/** Whether `promise` settles within its own microtasks: before any timer or I/O, however busy the host. */
async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  for (let tick = 0; tick < 20 && !settled; tick++) await Promise.resolve();
  return settled;
}
