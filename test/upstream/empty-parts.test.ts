import { describe, expect, it } from 'vitest';
import { V03_REST_PARTS, taskAnswerRepaired, v025Repaired, wrappedRepaired } from '../../src/upstream/empty-parts.js';
import { streamEvent, unaryResult } from '../../src/upstream/v1/methods.js';

const ids = { taskId: 't', contextId: 'c' };
const said = { messageId: 'm-said', role: 'ROLE_AGENT', parts: [{ text: 'the answer' }] };
const empty = { messageId: 'm-empty', role: 'ROLE_AGENT', parts: [] };
/** ProtoJSON leaves an empty list out: a 1.0 agent's message without parts has no `parts` key. */
const unlisted = { messageId: 'm-unlisted', role: 'ROLE_AGENT' };

describe('1.0 answers with messages and artifacts without parts (empty-parts.ts through upstream/v1/methods.ts)', () => {
  it.each([
    ['parts: []', empty],
    ['no parts key', unlisted],
  ])('a status-update whose message has %s keeps its status, without the message', (_name, message) => {
    const status = { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00Z', message };
    expect(streamEvent({ statusUpdate: { ...ids, status } })).toEqual({
      statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00Z' } },
    });
  });

  it('an artifact-update without parts is left out of the stream; nothing else changes', () => {
    expect(streamEvent({ artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [] }, append: true } })).toBeUndefined();
    // One that closes its artifact is still told, with one empty text.
    expect(streamEvent({ artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [] }, append: true, lastChunk: true } })).toEqual({
      artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [{ text: '' }] }, append: true, lastChunk: true },
    });
    // A well-formed event is the same object (the repair never runs on the fast path) ...
    const event = { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message: said } } };
    expect(streamEvent(event)).toBe(event);
    // ... and whatever else is wrong is still -32006 naming its field: the repair hides nothing.
    expect(() => streamEvent({ statusUpdate: { contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: empty } } })).toThrow(
      'The upstream agent returned an invalid stream event (at statusUpdate.taskId)',
    );
    expect(() => streamEvent({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message: { ...said, parts: 'x' } } } })).toThrow(
      /statusUpdate\.status\.message\.parts/,
    );
  });

  it('a task keeps its artifacts and history with parts only; a Message answer gets one empty text part', () => {
    const task = {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED', message: empty },
      artifacts: [
        { artifactId: 'a-empty', parts: [] },
        { artifactId: 'a', parts: [{ text: 'x' }] },
      ],
      history: [unlisted, said, empty],
    };
    const repaired = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [task.artifacts[1]], history: [said] };
    expect(unaryResult('getTask', task)).toEqual(repaired);
    expect(unaryResult('cancelTask', task)).toEqual(repaired);
    expect(unaryResult('sendMessage', { task })).toEqual({ task: repaired });
    expect(unaryResult('listTasks', { tasks: [task], nextPageToken: '', pageSize: 1, totalSize: 1 })).toMatchObject({ tasks: [repaired] });
    expect(unaryResult('sendMessage', { message: { ...empty, contextId: 'c' } })).toEqual({
      message: { ...empty, contextId: 'c', parts: [{ text: '' }] },
    });
    expect(streamEvent({ message: { ...unlisted, contextId: 'c' } })).toEqual({ message: { ...unlisted, contextId: 'c', parts: [{ text: '' }] } });
  });
});

describe('0.2.5 and 0.3 shapes', () => {
  it('0.2.5: by kind, as a2a-js 0.2.5 publishes them', () => {
    const message = { kind: 'message', messageId: 'm', role: 'agent', parts: [] };
    expect(v025Repaired({ kind: 'status-update', ...ids, status: { state: 'working', message }, final: false })).toEqual({
      kind: 'status-update',
      ...ids,
      status: { state: 'working' },
      final: false,
    });
    expect(v025Repaired({ kind: 'artifact-update', ...ids, artifact: { artifactId: 'a', parts: [] } })).toBeUndefined();
    expect(v025Repaired({ kind: 'artifact-update', ...ids, artifact: { artifactId: 'a', parts: [] }, lastChunk: true })).toEqual({
      kind: 'artifact-update',
      ...ids,
      artifact: { artifactId: 'a', parts: [{ kind: 'text', text: '' }] },
      lastChunk: true,
    });
    expect(v025Repaired(message)).toEqual({ ...message, parts: [{ kind: 'text', text: '' }] });
    const task = {
      kind: 'task',
      id: 't',
      contextId: 'c',
      status: { state: 'working', message },
      history: [message],
      artifacts: [{ artifactId: 'a', parts: [] }],
    };
    expect(v025Repaired(task)).toEqual({ kind: 'task', id: 't', contextId: 'c', status: { state: 'working' }, history: [], artifacts: [] });
    const whole = { kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } };
    expect(v025Repaired(whole)).toBe(whole);
  });

  it('0.3 HTTP+JSON: parts under `content`, a status message under `update`, a message answer under `msg`', () => {
    const task = {
      id: 't',
      status: { state: 'TASK_STATE_WORKING', update: { messageId: 'm', content: [] } },
      history: [{ messageId: 'h', parts: [] }],
    };
    expect(taskAnswerRepaired(task, V03_REST_PARTS)).toEqual({ id: 't', status: { state: 'TASK_STATE_WORKING' }, history: [] });
    expect(wrappedRepaired({ msg: { messageId: 'm', content: [] } }, V03_REST_PARTS)).toEqual({ msg: { messageId: 'm', parts: [{ text: '' }] } });
    expect(wrappedRepaired({ artifactUpdate: { taskId: 't', artifact: { artifactId: 'a', content: [] } } }, V03_REST_PARTS)).toBeUndefined();
  });
});
