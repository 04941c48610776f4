import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/model/index.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import { V025Task } from '../../src/protocol/v025/index.js';
import { finalReplyText, taskResultToV025 } from '../../src/translate/index.js';
import { IAC_CODE_BLOCKING_TASK } from './iac-code-turn.fixture.js';

const bailian = loadMappingProfile('bailian');
const NOW = '2030-01-01T00:00:00.000Z';
const options = { now: () => NOW, newArtifactId: () => 'reply' };

describe('taskResultToV025: message/send for Bailian', () => {
  const task = IAC_CODE_BLOCKING_TASK as unknown as Task;

  it('gives the final aggregate ONCE, then the upstream artifacts, state mapped, no history', () => {
    const result = taskResultToV025(task, bailian, options);
    expect(V025Task.safeParse(result).success).toBe(true);
    expect(result).toStrictEqual({
      kind: 'task',
      id: 'c50ca03f',
      contextId: '25a5c196',
      status: { state: 'completed', timestamp: '2026-11-29T11:25:08.997337Z' },
      artifacts: [
        { artifactId: 'reply', parts: [{ kind: 'text', text: 'Done.' }] },
        {
          artifactId: 'ea7aff6c',
          name: 'main.tf',
          parts: [{ kind: 'file', file: { uri: 'iac-code-artifact://ea7aff6c/main.tf', mimeType: 'text/plain', name: 'main.tf' }, metadata: { mediaType: 'text/plain' } }],
          metadata: { mediaType: 'text/plain' },
        },
      ],
    });
  });

  it("keeps the upstream metadata only with 'pass' and adds a timestamp when missing", () => {
    const { timestamp: _, ...status } = task.status;
    const result = taskResultToV025({ ...task, status }, bailian, { ...options, upstreamMetadata: 'pass' });
    expect(result.status.timestamp).toBe(NOW);
    expect(result.metadata).toStrictEqual({ iac_code: { iacCodeSessionId: '67c494f2' } });
  });

  it('a failed task keeps its message on the status and has no reply artifact', () => {
    const failed: Task = {
      id: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_FAILED',
        message: { messageId: 't-4', role: 'ROLE_AGENT', parts: [{ text: 'A2A server currently accepts text input only.' }] },
      },
      metadata: {},
    };
    const result = taskResultToV025(failed, bailian, options);
    expect(result.artifacts).toBeUndefined();
    expect(result.status).toMatchObject({ state: 'failed', message: { role: 'agent', parts: [{ text: 'A2A server currently accepts text input only.' }] } });
  });
});

describe('finalReplyText', () => {
  const agent = (messageId: string, text: string) => ({ messageId, role: 'ROLE_AGENT' as const, parts: [{ text }] });
  const user = (text: string) => ({ messageId: `u-${text}`, role: 'ROLE_USER' as const, parts: [{ text }] });
  const task = (history: Task['history'], message?: Task['status']['message']): Task => ({
    id: 't',
    status: { state: 'TASK_STATE_INPUT_REQUIRED', ...(message ? { message } : {}) },
    history,
  });

  it.each([
    ['chunks plus aggregate → the aggregate', [agent('m', 'a'), agent('m', 'b'), agent('f', 'ab')], 'ab'],
    ['chunks only → the joined chunks', [agent('m', 'a'), agent('m', 'b')], 'ab'],
    ['a single reply', [agent('r', 'hello')], 'hello'],
    ['only the last turn counts', [user('1'), agent('x', 'old'), user('2'), agent('m', 'n'), agent('m', 'ew')], 'new'],
    ['no agent text', [user('1')], ''],
  ] as const)('%s', (_name, history, expected) => {
    expect(finalReplyText(task([...history]))).toBe(expected);
  });

  it('a reply-state status message wins over history', () => {
    expect(finalReplyText(task([agent('m', 'chunk')], agent('s', 'A temporary error occurred. Please retry.')))).toBe(
      'A temporary error occurred. Please retry.',
    );
  });
});
