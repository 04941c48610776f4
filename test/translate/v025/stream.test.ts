import { describe, expect, it } from 'vitest';
import { StreamResponse } from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import { parseV025StreamEvent, type V025StreamEvent } from '../../../src/protocol/v025/index.js';
import { createV025ToV1StreamTranslator } from '../../../src/translate/index.js';

const profile = loadMappingProfile('a2a-0.2.5');

/** Bailian's documented SSE example, as a 0.2.5 agent would send it. */
const BAILIAN_EXAMPLE: V025StreamEvent[] = [
  { kind: 'task', id: 'task-1', contextId: 'context-1', status: { state: 'submitted', timestamp: '2025-07-15T14:52:28.277547Z' } },
  {
    kind: 'artifact-update',
    taskId: 'task-1',
    contextId: 'context-1',
    artifact: { artifactId: 'a', parts: [{ kind: 'text', text: '今天天气晴，' }] },
    append: true,
    lastChunk: false,
  },
  {
    kind: 'artifact-update',
    taskId: 'task-1',
    contextId: 'context-1',
    artifact: { artifactId: 'a', parts: [{ kind: 'text', text: '没有雨。' }] },
    append: true,
    lastChunk: true,
  },
  {
    kind: 'status-update',
    taskId: 'task-1',
    contextId: 'context-1',
    status: { state: 'completed', timestamp: '2025-07-15T14:52:28.277643Z' },
    final: true,
  },
];

function translateAll(events: V025StreamEvent[]) {
  const t = createV025ToV1StreamTranslator({ profile, contextId: 'ctx-fallback' });
  const results = events.map((event) => t.push(event));
  return { t, results, out: results.flatMap((result) => result.events) };
}

describe('0.2.5 → 1.0 stream', () => {
  it("an update for another task of the stream's context is the stream's task's (a2a-js 0.2.5 fails a thrown turn under a new id)", () => {
    const { out } = translateAll([
      { kind: 'task', id: 't', contextId: 'c', status: { state: 'submitted' } },
      { kind: 'status-update', taskId: 'made-up', contextId: 'c', status: { state: 'failed' }, final: true },
    ]);
    expect(out.at(-1)).toMatchObject({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_FAILED' } } });
    // Another context's task is not the stream's: left as the agent named it.
    const other = translateAll([
      { kind: 'task', id: 't', contextId: 'c', status: { state: 'submitted' } },
      { kind: 'status-update', taskId: 'u', contextId: 'd', status: { state: 'working' }, final: false },
    ]);
    expect(other.out.at(-1)).toMatchObject({ statusUpdate: { taskId: 'u', contextId: 'd' } });
  });

  it("a Message in a task's stream (a2a-js 0.2.5 ends every stream at one) is the task's answer: COMPLETED with it", () => {
    const { results, out } = translateAll([
      { kind: 'task', id: 't', contextId: 'c', status: { state: 'submitted' } },
      { kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'working' }, final: false },
      { kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'Done: 3 VPCs.' }] },
    ]);
    expect(out.at(-1)).toStrictEqual({
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        status: {
          state: 'TASK_STATE_COMPLETED',
          message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Done: 3 VPCs.' }], taskId: 't', contextId: 'c' },
        },
      },
    });
    expect(results.at(-1)?.done).toBe(true);
    // A Message alone is the whole answer, as before.
    expect(translateAll([{ kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'Hi' }] }]).out[0]).toHaveProperty(
      'message',
    );
  });

  it("translates Bailian's documented stream: kind and final stripped, enums converted, done after final", () => {
    const { results, out } = translateAll(BAILIAN_EXAMPLE);
    expect(out).toStrictEqual([
      { task: { id: 'task-1', contextId: 'context-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2025-07-15T14:52:28.277547Z' } } },
      {
        artifactUpdate: {
          taskId: 'task-1',
          contextId: 'context-1',
          artifact: { artifactId: 'a', parts: [{ text: '今天天气晴，' }] },
          append: true,
          lastChunk: false,
        },
      },
      {
        artifactUpdate: {
          taskId: 'task-1',
          contextId: 'context-1',
          artifact: { artifactId: 'a', parts: [{ text: '没有雨。' }] },
          append: true,
          lastChunk: true,
        },
      },
      {
        statusUpdate: {
          taskId: 'task-1',
          contextId: 'context-1',
          status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-07-15T14:52:28.277643Z' },
        },
      },
    ]);
    expect(results.map((result) => result.done)).toEqual([false, false, false, true]);
    for (const event of out) expect(StreamResponse.safeParse(event).success).toBe(true);
  });

  it('synthesises a SUBMITTED Task when the first event is an update, which alone says what it says, and normalises naive timestamps', () => {
    const working = {
      kind: 'message' as const,
      messageId: 'w',
      role: 'agent' as const,
      parts: [{ kind: 'text' as const, text: 'Working on it...' }],
    };
    const { out } = translateAll([
      {
        kind: 'status-update',
        taskId: 't',
        contextId: 'c',
        status: { state: 'working', timestamp: '2025-04-02T16:59:25.331844', message: working },
        final: false,
      },
    ]);
    const said = { messageId: 'w', role: 'ROLE_AGENT', parts: [{ text: 'Working on it...' }] };
    expect(out).toStrictEqual([
      { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2025-04-02T16:59:25.331844Z' } } },
      {
        statusUpdate: {
          taskId: 't',
          contextId: 'c',
          status: { state: 'TASK_STATE_WORKING', timestamp: '2025-04-02T16:59:25.331844Z', message: said },
        },
      },
    ]);
    const artifactFirst = translateAll([
      { kind: 'artifact-update', taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ kind: 'data', data: { x: 1 } }] } },
    ]).out;
    expect(artifactFirst[0]).toStrictEqual({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } });
  });

  it('a message is the whole stream; a missing contextId is synthesised', () => {
    const { t, results, out } = translateAll([{ kind: 'message', role: 'agent', messageId: 'm', parts: [{ kind: 'text', text: 'hi' }] }]);
    expect(out).toStrictEqual([{ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }], contextId: 'ctx-fallback' } }]);
    expect(results[0]?.done).toBe(true);
    expect(t.push(BAILIAN_EXAMPLE[0]!)).toStrictEqual({ events: [], done: true });
  });

  it('input-required with final: true ends the stream; without final it does not', () => {
    const update = (final: boolean): V025StreamEvent => ({
      kind: 'status-update',
      taskId: 't',
      contextId: 'c',
      status: { state: 'input-required' },
      final,
    });
    expect(translateAll([BAILIAN_EXAMPLE[0]!, update(false)]).t.done).toBe(false);
    expect(translateAll([BAILIAN_EXAMPLE[0]!, update(true)]).t.done).toBe(true);
  });

  it('parses upstream events leniently (type alias) and rejects garbage as -32006', () => {
    expect(parseV025StreamEvent({ kind: 'message', role: 'agent', messageId: 'm', parts: [{ type: 'text', text: 'x' }] }).kind).toBe('message');
    expect(() => parseV025StreamEvent({ kind: 'status-update', taskId: 't' })).toThrow(expect.objectContaining({ code: -32006 }));
  });
});
