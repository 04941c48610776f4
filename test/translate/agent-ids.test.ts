/**
 * An older agent's task and context ids as 1.0 callers get them (src/translate/agent-ids.ts): a protocol id
 * as it is, any other as `b64:` + base64url, refused when that would not fit; and back to the agent's own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { A2AError, isProtocolId } from '../../src/model/index.js';
import type { Task } from '../../src/model/index.js';
import { ENCODED_AGENT_ID_PREFIX, agentIdFromV1, agentIdToV1, streamResponseIds, taskIds } from '../../src/translate/index.js';

const toV1 = (id: string): string => agentIdToV1(id, 'context id');
const roundTrip = (id: string): string => agentIdFromV1(toV1(id));

describe("an agent's id on the 1.0 side", () => {
  it('a protocol id passes unchanged both ways: iac-code ids, UUIDs, every allowed character', () => {
    for (const id of ['ctx-1', 'iac:task.42_a', '0d4c7b2e-8f1a-4c3e-9b6d-2a5f7e9c1d3b', 'A'.repeat(128), 'b64', 'b64-x', 'B64:abc']) {
      expect([toV1(id), agentIdFromV1(id)]).toEqual([id, id]);
    }
  });

  it('any other id becomes b64: and the base64url of its UTF-8, a protocol id that maps back to it', () => {
    expect(toV1('session/42 ü')).toBe('b64:c2Vzc2lvbi80MiDDvA');
    expect(agentIdFromV1('b64:c2Vzc2lvbi80MiDDvA')).toBe('session/42 ü');
    for (const id of [
      'session/42 ü',
      'a/b',
      'x?y=1&z#f',
      'ümlaut 空白 🚀',
      '%2F..%2F',
      ' lead-space',
      `${'a'.repeat(90)}/`,
      'tab\there',
      '💬'.repeat(23),
    ]) {
      const encoded = toV1(id);
      expect(encoded.startsWith(ENCODED_AGENT_ID_PREFIX) && isProtocolId(encoded)).toBe(true);
      expect(agentIdFromV1(encoded)).toBe(id);
    }
  });

  it("'' (no id) passes unchanged, and 'b64:' alone is an id of its own", () => {
    expect([toV1(''), agentIdFromV1('')]).toEqual(['', '']);
    expect([toV1('b64:'), agentIdFromV1('b64:')]).toEqual(['b64:', 'b64:']);
  });

  it('a 1.0 id that only looks encoded stays itself: its payload decodes to a protocol id, or is no canonical base64url, or no UTF-8', () => {
    const looksEncoded = [
      `b64:${Buffer.from('plain-id').toString('base64url')}`,
      'b64:c2Vzc2lvbi80MiDDvA==',
      'b64:c2Vzc2lvbi80MiDDvB',
      'b64:A',
      `b64:${Buffer.from([0xff, 0xfe, 0x2f]).toString('base64url')}`,
    ];
    for (const id of looksEncoded) expect(agentIdFromV1(id)).toBe(id);
  });

  it("an agent's own protocol id that reads as an encoded one is encoded too, so no two agent ids meet on the 1.0 side", () => {
    const lookalike = 'b64:c2Vzc2lvbi80MiDDvA';
    const encoded = toV1(lookalike);
    expect(encoded).not.toBe(lookalike);
    expect(encoded).not.toBe(toV1('session/42 ü'));
    expect(agentIdFromV1(encoded)).toBe(lookalike);
    expect(roundTrip(encoded)).toBe(encoded);
  });

  it('an id whose encoding would not fit 128 characters (over 93 bytes) is refused naming it: -32006, not an id every later call refuses', () => {
    expect(toV1('/'.repeat(93)).length).toBe(128);
    let refusal: unknown;
    try {
      agentIdToV1(`conversation/${'x'.repeat(90)}`, 'task id');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(A2AError);
    expect(() => toV1('a'.repeat(129))).toThrow(/context id "a+…" cannot be passed/);
    expect((refusal as A2AError).code).toBe(-32006);
    expect((refusal as A2AError).message).toMatch(/^The upstream agent's task id "conversation\/x+…" cannot be passed to A2A 1\.0 callers/);
  });

  it('an id that is no Unicode text (a lone surrogate) is refused rather than carried as another id', () => {
    expect(() => toV1('half \ud800')).toThrow(/not valid text/);
  });

  it('is a bijection: every agent id that fits maps to a protocol id and back; every 1.0 id maps to an agent id and back', () => {
    const fits = (id: string): boolean => Buffer.byteLength(id) <= 93;
    const agentIds = fc
      .oneof(
        fc.string({ maxLength: 60, unit: 'grapheme' }),
        fc.stringMatching(/^[A-Za-z0-9_.:-]{1,40}$/),
        fc.string({ maxLength: 40, unit: 'grapheme' }).map((text) => `b64:${Buffer.from(text).toString('base64url')}`),
      )
      .filter(fits);
    fc.assert(
      fc.property(agentIds, (id) => {
        const encoded = toV1(id);
        expect(id === '' || isProtocolId(encoded)).toBe(true);
        expect(agentIdFromV1(encoded)).toBe(id);
        expect(toV1(agentIdFromV1(encoded))).toBe(encoded);
      }),
      { numRuns: 2000 },
    );
    const v1Ids = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,128}$/), fc.stringMatching(/^b64:[A-Za-z0-9_-]{0,40}$/));
    fc.assert(
      fc.property(v1Ids, (id) => {
        expect(toV1(agentIdFromV1(id))).toBe(id);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the ids of a whole answer (agent-id-fields.ts)', () => {
  const message = (taskId: string, contextId: string, referenceTaskIds?: string[]) => ({
    messageId: 'm-1',
    role: 'ROLE_AGENT' as const,
    parts: [{ text: 'hi' }],
    taskId,
    contextId,
    ...(referenceTaskIds ? { referenceTaskIds } : {}),
  });

  it("a task's ids, its status message's, its history's and their referenced tasks' are mapped; message and artifact ids are not", () => {
    const task: Task = {
      id: 'turn #1',
      contextId: 'session/1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message: message('turn #1', 'session/1', ['turn #0', 'task-0']) },
      history: [message('turn #1', 'session/1')],
      artifacts: [{ artifactId: 'a/1', parts: [{ text: 'x' }] }],
    };
    const mapped = taskIds(task, agentIdToV1);
    const [taskId, contextId] = [agentIdToV1('turn #1', 'task id'), agentIdToV1('session/1', 'context id')];
    expect(mapped).toEqual({
      ...task,
      id: taskId,
      contextId,
      status: { ...task.status, message: message(taskId, contextId, [agentIdToV1('turn #0', 'task id'), 'task-0']) },
      history: [message(taskId, contextId)],
    });
    expect(taskIds(mapped, agentIdFromV1)).toEqual(task);
  });

  it('an event whose ids need no mapping is the same object (no copy per stream event)', () => {
    const event = {
      statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' as const, message: message('t-1', 'c-1') } },
    };
    expect(streamResponseIds(event, agentIdToV1)).toBe(event);
  });
});
