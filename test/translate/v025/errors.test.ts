import { describe, expect, it } from 'vitest';
import { A2AError, toJsonRpcError } from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import { errorFromV025, errorToV025 } from '../../../src/translate/index.js';

const profile = loadMappingProfile('bailian');

describe('errors', () => {
  it('A2AError → {code, message} through the table', () => {
    expect(errorToV025(A2AError.taskNotFound('t-1'), profile)).toStrictEqual({ code: -32001, message: 'Task t-1 not found' });
    expect(errorToV025(A2AError.versionNotSupported('0.3'), profile).code).toBe(-32600);
  });

  it('a 1.0 JSON-RPC error object loses its ErrorInfo data', () => {
    const wire = toJsonRpcError(A2AError.taskNotCancelable('t'));
    expect(wire.data).toBeDefined();
    expect(errorToV025(wire, profile)).toStrictEqual({ code: -32002, message: 'Task cannot be canceled' });
  });

  it("names a task state in the error's words as the caller's profile shows it", () => {
    const finished = A2AError.unsupportedOperation('Task t is in a terminal state (TASK_STATE_COMPLETED) and cannot be modified');
    expect(errorToV025(finished, profile).message).toBe('Task t is in a terminal state (completed) and cannot be modified');
    const plain = loadMappingProfile('a2a-0.2.5');
    expect(errorToV025({ code: -32004, message: 'TASK_STATE_INPUT_REQUIRED, TASK_STATE_NOPE' }, plain).message).toBe(
      'input-required, TASK_STATE_NOPE',
    );
  });

  it('names a state an agent printed as its 1.0 enum number (a2a-js 1.x, iac-code) by its 0.2.5 name; other numbers stay', () => {
    const a2aJs = { code: -32004, message: 'Task t is in a terminal state (3) and cannot be subscribed to.' };
    expect(errorToV025(a2aJs, profile).message).toBe('Task t is in a terminal state (completed) and cannot be subscribed to.');
    expect(errorToV025(A2AError.invalidParams('Task t is in terminal state: 5'), loadMappingProfile('a2a-0.2.5')).message).toBe(
      'Task t is in terminal state: canceled',
    );
    expect(errorToV025(A2AError.invalidParams('Task t failed 3 times (state 3)'), profile).message).toBe('Task t failed 3 times (state 3)');
  });

  it('falls back to the 0.2.5 default message and to -32603 for illegal codes', () => {
    expect(errorToV025({ code: -32001, message: '' }, profile)).toStrictEqual({ code: -32001, message: 'Task not found' });
    expect(errorToV025({ code: 42, message: 'odd' }, profile)).toStrictEqual({ code: -32603, message: 'odd' });
    expect(errorToV025({ code: -32050, message: 'custom' }, profile)).toStrictEqual({ code: -32050, message: 'custom' });
  });

  it('a 0.2.5 error → A2AError, object data becomes string metadata without diagnostics', () => {
    const error = errorFromV025(
      { code: -32001, message: 'Task not found', data: { taskId: 't-404', attempts: 2, stack: 'at /srv/app.py:1', nested: { a: 1 } } },
      profile,
    );
    expect(error).toBeInstanceOf(A2AError);
    expect(error.code).toBe(-32001);
    expect(error.reason).toBe('TASK_NOT_FOUND');
    expect(error.metadata).toStrictEqual({ taskId: 't-404', attempts: '2' });
  });

  it('maps unknown 0.2.5 codes outside the server range to -32603 and fills missing messages', () => {
    expect(errorFromV025({ code: 500, message: 'boom' }, profile).code).toBe(-32603);
    expect(errorFromV025({ code: -32042, message: 'x' }, profile).code).toBe(-32042);
    expect(errorFromV025({ code: -32004, message: '' }, profile).message).toBe('This operation is not supported');
  });

  it('cuts a long message between characters, never between the halves of an emoji', () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    const long = `失${'😀'.repeat(1_000)}`;
    const toV025 = errorToV025(A2AError.internal(long), profile).message;
    const fromV025 = errorFromV025({ code: -32603, message: long, data: { detail: long } }, profile);
    for (const message of [toV025, fromV025.message, fromV025.metadata.detail ?? '']) {
      expect(message.length).toBeGreaterThan(100);
      expect(message).not.toMatch(lone);
      expect(long.startsWith(message)).toBe(true);
    }
  });
});
