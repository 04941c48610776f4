import { describe, expect, it } from 'vitest';
import { Message, Part, isProtocolId, parseParams, SendMessageRequest, A2AError } from '../../src/model/index.js';

describe('Part', () => {
  it('accepts exactly one content kind', () => {
    expect(Part.safeParse({ text: 'hi' }).success).toBe(true);
    expect(Part.safeParse({ raw: 'aGk=', mediaType: 'text/plain', filename: 'a.txt' }).success).toBe(true);
    expect(Part.safeParse({ data: [1, 2] }).success).toBe(true);
  });
  it('rejects zero or several content kinds', () => {
    expect(Part.safeParse({ mediaType: 'text/plain' }).success).toBe(false);
    expect(Part.safeParse({ text: 'a', url: 'file:///x' }).success).toBe(false);
  });
});

describe('Message', () => {
  it('requires messageId, a 1.0 role and at least one part', () => {
    expect(Message.safeParse({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] }).success).toBe(true);
    expect(Message.safeParse({ messageId: 'm', role: 'user', parts: [{ text: 'x' }] }).success).toBe(false);
    expect(Message.safeParse({ messageId: 'm', role: 'ROLE_USER', parts: [] }).success).toBe(false);
    expect(Message.safeParse({ role: 'ROLE_USER', parts: [{ text: 'x' }] }).success).toBe(false);
  });

  it('names a missing parts list as the empty one it is (ProtoJSON leaves an empty list out)', () => {
    for (const parts of [[], undefined]) {
      const parsed = Message.safeParse({ messageId: 'm', role: 'ROLE_USER', ...(parts ? { parts } : {}) });
      expect(parsed.error?.issues.map((issue) => issue.message)).toEqual(['parts must contain at least one element']);
    }
  });
});

describe('protocol ids', () => {
  it.each([
    ['abc-DEF_1.2:3', true],
    ['x'.repeat(128), true],
    ['x'.repeat(129), false],
    ['', false],
    ['a b', false],
    ['a/b', false],
    ['ü', false],
  ])('%s → %s', (id, ok) => {
    expect(isProtocolId(id)).toBe(ok);
  });
});

describe('parseParams', () => {
  it('throws -32602 naming the field', () => {
    try {
      parseParams(SendMessageRequest, { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(A2AError);
      const e = error as A2AError;
      expect(e.code).toBe(-32602);
      expect(e.violations[0]?.field).toBe('message.messageId');
    }
  });
});
