import { describe, expect, it } from 'vitest';
import { TASK_STATES, type Task } from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import type { V025Task } from '../../../src/protocol/v025/index.js';
import {
  artifactUpdateToV025,
  artifactUpdateToV1,
  statusUpdateToV025,
  statusUpdateToV1,
  streamEventToV1,
  streamResponseToV025,
  taskToV025,
  taskToV1,
  toRfc3339Utc,
} from '../../../src/translate/index.js';

const spec = loadMappingProfile('a2a-0.2.5');
const bailian = loadMappingProfile('bailian');
const now = () => '2030-01-01T00:00:00.000Z';

describe('timestamps', () => {
  it.each([
    ['2025-04-02T16:59:25.331844', '2025-04-02T16:59:25.331844Z'],
    ['2025-06-30T10:00:00Z', '2025-06-30T10:00:00Z'],
    ['2025-06-30T10:00:00z', '2025-06-30T10:00:00Z'],
    ['2025-06-30T12:00:00.5+02:00', '2025-06-30T10:00:00.5Z'],
    ['2025-06-30T00:30:00-0130', '2025-06-30T02:00:00Z'],
    ['2025-12-31T23:30:00-01:00', '2026-01-01T00:30:00Z'],
    ['2025-06-30 10:00', '2025-06-30T10:00:00Z'],
    ['2025-06-30', '2025-06-30T00:00:00Z'],
    ['2026-11-29T11:25:08.861112Z', '2026-11-29T11:25:08.861112Z'],
    ['2025-06-30T10:00:00.1234567891Z', '2025-06-30T10:00:00.123456789Z'],
  ])('%s → %s', (input, output) => {
    expect(toRfc3339Utc(input)).toBe(output);
  });
  it.each(['yesterday', '2025-02-30T00:00:00Z', '2025-13-01', '2025-06-30T25:00:00', ''])('rejects %j', (input) => {
    expect(toRfc3339Utc(input)).toBeUndefined();
  });
});

describe('tasks', () => {
  const v025: V025Task = {
    kind: 'task',
    id: 't-1',
    contextId: 'c-1',
    status: {
      state: 'input-required',
      timestamp: '2025-06-30T10:00:00Z',
      message: { kind: 'message', role: 'agent', messageId: 'm-2', parts: [{ kind: 'text', text: 'Where to?' }] },
    },
    artifacts: [{ artifactId: 'a-1', name: 'draft', parts: [{ kind: 'text', text: '…' }] }],
    history: [{ kind: 'message', role: 'user', messageId: 'm-1', parts: [{ kind: 'text', text: 'go' }] }],
    metadata: {},
  };
  const v1: Task = {
    id: 't-1',
    contextId: 'c-1',
    status: {
      state: 'TASK_STATE_INPUT_REQUIRED',
      timestamp: '2025-06-30T10:00:00Z',
      message: { role: 'ROLE_AGENT', messageId: 'm-2', parts: [{ text: 'Where to?' }] },
    },
    artifacts: [{ artifactId: 'a-1', name: 'draft', parts: [{ text: '…' }] }],
    history: [{ role: 'ROLE_USER', messageId: 'm-1', parts: [{ text: 'go' }] }],
    metadata: {},
  };

  it('converts the reference example both ways', () => {
    expect(taskToV1(v025, spec)).toStrictEqual(v1);
    expect(taskToV025(v1, spec, { now })).toStrictEqual(v025);
  });

  it('normalises a naive timestamp going to 1.0 and drops an unparseable one', () => {
    expect(taskToV1({ ...v025, status: { state: 'working', timestamp: '2025-04-02T16:59:25.331844' } }, spec).status).toStrictEqual({
      state: 'TASK_STATE_WORKING',
      timestamp: '2025-04-02T16:59:25.331844Z',
    });
    expect(taskToV1({ ...v025, status: { state: 'working', timestamp: 'soon' } }, spec).status).toStrictEqual({ state: 'TASK_STATE_WORKING' });
  });

  it('adds a timestamp when 1.0 has none and synthesises a missing contextId', () => {
    const bare: Task = { id: 't-9', status: { state: 'TASK_STATE_SUBMITTED' } };
    expect(taskToV025(bare, spec, { now })).toStrictEqual({
      kind: 'task',
      id: 't-9',
      contextId: 't-9',
      status: { state: 'submitted', timestamp: now() },
    });
    expect(taskToV025(bare, spec, { now, contextId: 'ctx-from-request' }).contextId).toBe('ctx-from-request');
  });

  it.each(TASK_STATES.map((state) => [state]))('maps %s through each profile', (state) => {
    const task: Task = { id: 't', contextId: 'c', status: { state } };
    expect(taskToV025(task, spec, { now }).status.state).toBe(spec.statesToV025[state]);
    expect(taskToV025(task, bailian, { now }).status.state).toBe(bailian.statesToV025[state]);
  });
});

describe('stream events', () => {
  it('status-update: final dropped going to 1.0', () => {
    expect(
      statusUpdateToV1(
        { kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'completed', timestamp: '2025-06-30T10:00:05Z' }, final: true },
        spec,
      ),
    ).toStrictEqual({ taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-06-30T10:00:05Z' } });
  });

  it.each([
    ['TASK_STATE_WORKING', spec, false],
    ['TASK_STATE_COMPLETED', spec, true],
    ['TASK_STATE_INPUT_REQUIRED', spec, true],
    ['TASK_STATE_AUTH_REQUIRED', spec, false],
    ['TASK_STATE_AUTH_REQUIRED', bailian, true],
    ['TASK_STATE_CANCELED', spec, true],
  ] as const)('status-update %s: final computed (%#)', (state, profile, final) => {
    const event = statusUpdateToV025({ taskId: 't', contextId: 'c', status: { state } }, profile, { now });
    expect(event).toStrictEqual({
      kind: 'status-update',
      taskId: 't',
      contextId: 'c',
      status: { state: profile.statesToV025[state], timestamp: now() },
      final,
    });
  });

  it('artifact-update keeps append/lastChunk both ways', () => {
    const v025 = {
      kind: 'artifact-update' as const,
      taskId: 't',
      contextId: 'c',
      artifact: { artifactId: 'a-1', parts: [{ kind: 'text' as const, text: 'part 1' }] },
      append: false,
      lastChunk: true,
    };
    const v1 = artifactUpdateToV1(v025, spec);
    expect(v1).toStrictEqual({
      taskId: 't',
      contextId: 'c',
      artifact: { artifactId: 'a-1', parts: [{ text: 'part 1' }] },
      append: false,
      lastChunk: true,
    });
    expect(artifactUpdateToV025(v1, spec)).toStrictEqual(v025);
  });

  it('maps kind to the 1.0 wrapper key and back', () => {
    expect(Object.keys(streamEventToV1({ kind: 'task', id: 't', contextId: 'c', status: { state: 'submitted' } }, spec))).toEqual(['task']);
    expect(Object.keys(streamEventToV1({ kind: 'message', role: 'agent', messageId: 'm', parts: [{ kind: 'text', text: 'x' }] }, spec))).toEqual([
      'message',
    ]);
    expect(streamResponseToV025({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } }, spec, { now }).kind).toBe('task');
    expect(
      streamResponseToV025({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } }, spec, { now }),
    ).toMatchObject({ kind: 'status-update', final: true });
  });
});
