/**
 * The registry's batch fold (foldEvents, which changes one private copy in place) gives exactly what
 * folding the events one by one with foldEvent (which copies the task per event) gives, and changes
 * neither the stored task nor the events: random batches over random stored tasks (bounded, as the
 * registry stores them).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundHistory, foldEvent, foldEvents } from '../../src/core/task-registry/fold.js';
import type { Message, StreamResponse, Task, TaskState } from '../../src/model/index.js';

const STATES: TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED'];

const message = (taskId: string): fc.Arbitrary<Message> =>
  fc.record({
    messageId: fc.constantFrom('m-1', 'm-2', 'm-3'),
    role: fc.constantFrom('ROLE_USER' as const, 'ROLE_AGENT' as const),
    parts: fc.array(fc.record({ text: fc.string({ maxLength: 3 }) }), { minLength: 1, maxLength: 2 }),
    taskId: fc.constantFrom(taskId, 'other-task'),
  });

const artifact = fc.record({
  artifactId: fc.constantFrom('a-1', 'a-2', 'a-3'),
  parts: fc.array(fc.record({ text: fc.string({ maxLength: 3 }) }), { minLength: 1, maxLength: 2 }),
  metadata: fc.option(fc.record({ k: fc.nat(3) }), { nil: undefined }),
});

const task = (id: string): fc.Arbitrary<Task> =>
  fc.record(
    {
      id: fc.constant(id),
      contextId: fc.constantFrom('c-1', 'c-2'),
      status: fc.record({ state: fc.constantFrom(...STATES), message: fc.option(message(id), { nil: undefined }) }, { requiredKeys: ['state'] }),
      history: fc.array(message(id), { maxLength: 4 }),
      artifacts: fc.array(artifact, { maxLength: 2 }),
      metadata: fc.record({ a: fc.nat(3) }),
    },
    { requiredKeys: ['id', 'status'] },
  );

const event = (id: string): fc.Arbitrary<StreamResponse> =>
  fc.oneof(
    task(id).map((value): StreamResponse => ({ task: value })),
    fc
      .record({
        state: fc.constantFrom(...STATES),
        message: fc.option(message(id), { nil: undefined }),
        metadata: fc.option(fc.record({ b: fc.nat(3) }), { nil: undefined }),
        contextId: fc.constantFrom('c-1', 'c-3'),
      })
      .map(({ state, message: said, metadata, contextId }): StreamResponse => ({
        statusUpdate: {
          taskId: id,
          contextId,
          status: { state, ...(said ? { message: said } : {}) },
          ...(metadata ? { metadata } : {}),
        },
      })),
    fc
      .record({ artifact, append: fc.boolean(), metadata: fc.option(fc.record({ c: fc.nat(3) }), { nil: undefined }) })
      .map(({ artifact: value, append, metadata }): StreamResponse => ({
        artifactUpdate: { taskId: id, contextId: 'c-1', artifact: value, append, ...(metadata ? { metadata } : {}) },
      })),
    message(id).map((value): StreamResponse => ({ message: value })),
  );

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The reference: one event at a time, a new task each time. */
function oneByOne(current: Task | undefined, events: readonly StreamResponse[], limit: number): Task | undefined {
  let folded = current;
  let applied = false;
  for (const next of events) {
    const result = foldEvent(folded, next, limit);
    if (!result) continue;
    folded = result;
    applied = true;
  }
  return applied ? folded : undefined;
}

describe('foldEvent', () => {
  it("an update's metadata joins the task's, a status update's and an artifact update's alike (as a2a-js 1.x records them)", () => {
    const started: Task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { task: 'T' } };
    const events: StreamResponse[] = [
      { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { status: 'S' } } },
      { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, metadata: { artifact: 'A' } } },
    ];
    expect(oneByOne(started, events, 10)?.metadata).toEqual({ task: 'T', status: 'S', artifact: 'A' });
    expect(foldEvents(started, events, 10)?.metadata).toEqual({ task: 'T', status: 'S', artifact: 'A' });
  });
});

describe('foldEvents', () => {
  it('equals folding one event at a time, and leaves its inputs as they were', () => {
    fc.assert(
      fc.property(fc.option(task('t-1'), { nil: undefined }), fc.array(event('t-1'), { maxLength: 25 }), fc.nat(6), (generated, events, limit) => {
        // What the registry stores is bounded already (every write bounds it).
        const stored = generated && boundHistory(generated, limit);
        const expected = oneByOne(structuredClone(stored), structuredClone(events), limit);
        // Frozen: any change in place to the stored task or to an event throws.
        const actual = foldEvents(deepFreeze(structuredClone(stored)), deepFreeze(structuredClone(events)), limit);
        expect(actual).toEqual(expected);
        expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 2_000 },
    );
  });

  it('a long turn of chunks: the history keeps the last `limit` status messages, the artifact every chunk', () => {
    const chunks = 5_000;
    const events: StreamResponse[] = [{ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } }];
    for (let i = 0; i < chunks; i++) {
      const said: Message = { messageId: `m-${i}`, role: 'ROLE_AGENT', parts: [{ text: `${i}` }] };
      events.push({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: said } } });
      events.push({ artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: `${i}` }] }, append: i > 0 } });
    }
    const folded = foldEvents(undefined, deepFreeze(events), 200)!;
    expect(folded.history?.map((entry) => entry.messageId)).toEqual(Array.from({ length: 200 }, (_, i) => `m-${chunks - 201 + i}`));
    expect(folded.status.message?.messageId).toBe(`m-${chunks - 1}`);
    expect(folded.artifacts?.[0]?.parts).toHaveLength(chunks);
  });
});

describe('the status message that gives way', () => {
  const said = (messageId: string, role: Message['role'], text: string): Message => ({ messageId, role, parts: [{ text }], taskId: 't-1' });
  const update = (message: Message): StreamResponse => ({
    statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING', message } },
  });
  const both = (events: StreamResponse[]): Task[] => [
    foldEvents(undefined, events, 100)!,
    events.reduce<Task | undefined>((current, next) => foldEvent(current, next, 100), undefined)!,
  ];
  const texts = (task: Task): string[] => (task.history ?? []).map((message) => message.parts.map((part) => part.text).join(''));

  it('is not moved into the history again when an a2a-js 1.x Task holds it there already (its question, the answer after it)', () => {
    const question = said('q-1', 'ROLE_AGENT', 'Which date?');
    const reopened: Task = {
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question },
      history: [said('u-1', 'ROLE_USER', 'book'), question, said('u-2', 'ROLE_USER', '2026-01-02')],
    };
    for (const task of both([{ task: reopened }, update(said('w-1', 'ROLE_AGENT', 'Booking')), update(said('w-2', 'ROLE_AGENT', 'Booked'))])) {
      expect(texts(task)).toEqual(['book', 'Which date?', '2026-01-02', 'Booking']);
    }
  });

  it('is moved when it is a chunk of a run under one id, two alike in a row too (iac-code streams a turn so)', () => {
    const chunk = (text: string) => said('x', 'ROLE_AGENT', text);
    const events = [chunk('a'), chunk('\n'), chunk('\n'), chunk('b'), chunk('\n'), said('final', 'ROLE_AGENT', 'a\n\nb\n')].map(update);
    for (const task of both([{ task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' } } }, ...events])) {
      expect(texts(task)).toEqual(['a', '\n', '\n', 'b', '\n']);
    }
  });
});
