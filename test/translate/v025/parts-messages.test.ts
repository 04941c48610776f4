import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import { V025Message, V025Part, type V025Part as V025PartType } from '../../../src/protocol/v025/index.js';
import { messageToV025, messageToV1, partToV025, partToV1, toStandardBase64 } from '../../../src/translate/index.js';

const profile = loadMappingProfile('a2a-0.2.5');

describe('parts: the field table of docs/version-mapping.md', () => {
  const cases: [string, V025PartType, Part][] = [
    ['text', { kind: 'text', text: 'hi', metadata: { k: 'v' } }, { text: 'hi', metadata: { k: 'v' } }],
    [
      'file bytes',
      { kind: 'file', file: { bytes: 'aGk=', mimeType: 'image/png', name: 'a.png' }, metadata: { k: 1 } },
      { raw: 'aGk=', mediaType: 'image/png', filename: 'a.png', metadata: { k: 1 } },
    ],
    [
      'file uri',
      { kind: 'file', file: { uri: 'https://x/r.pdf', mimeType: 'application/pdf', name: 'r.pdf' } },
      { url: 'https://x/r.pdf', mediaType: 'application/pdf', filename: 'r.pdf' },
    ],
    ['file uri without names', { kind: 'file', file: { uri: 'iac-code-artifact://A/main.tf' } }, { url: 'iac-code-artifact://A/main.tf' }],
    ['data object', { kind: 'data', data: { a: 1 }, metadata: { m: true } }, { data: { a: 1 }, metadata: { m: true } }],
  ];

  it.each(cases)('%s: 0.2.5 → 1.0', (_name, v025, v1) => {
    expect(partToV1(v025, profile)).toStrictEqual(v1);
  });
  it.each(cases)('%s: 1.0 → 0.2.5', (_name, v025, v1) => {
    expect(partToV025(v1, profile)).toStrictEqual(v025);
  });

  it('wraps non-object 1.0 data as {value} with data_part_compat and unwraps it back', () => {
    for (const data of [[1, 2], 'text', 42, null, true]) {
      const v025 = partToV025({ data }, profile);
      expect(v025).toStrictEqual({ kind: 'data', data: { value: data }, metadata: { data_part_compat: true } });
      expect(partToV1(v025, profile)).toStrictEqual({ data });
    }
  });

  it('stashes mediaType/filename of text and data parts in metadata and restores them', () => {
    const text: Part = { text: '# T', mediaType: 'text/markdown', filename: 'a.md', metadata: { k: 'v' } };
    const v025 = partToV025(text, profile);
    expect(v025).toStrictEqual({ kind: 'text', text: '# T', metadata: { k: 'v', a2a_bridge: { mediaType: 'text/markdown', filename: 'a.md' } } });
    expect(partToV1(v025, profile)).toStrictEqual(text);

    const data: Part = { data: [1], mediaType: 'application/json' };
    const wrapped = partToV025(data, profile);
    expect(wrapped.metadata).toStrictEqual({ a2a_bridge: { mediaType: 'application/json' }, data_part_compat: true });
    expect(partToV1(wrapped, profile)).toStrictEqual(data);
  });

  it('normalises URL-safe base64 to the standard alphabet with padding', () => {
    expect(toStandardBase64('-_8')).toBe('+/8=');
    expect(partToV025({ raw: 'aGk' }, profile)).toStrictEqual({ kind: 'file', file: { bytes: 'aGk=' } });
  });

  it('renders url and data parts as text when the profile says so', () => {
    const textOnly = loadMappingProfile('bailian', { 'part-kinds-to-v025': { url: 'text', data: 'text' } });
    expect(partToV025({ url: 'https://x/y', filename: 'y' }, textOnly)).toStrictEqual({ kind: 'text', text: 'https://x/y' });
    expect(partToV025({ data: { a: [1] } }, textOnly)).toStrictEqual({ kind: 'text', text: '{"a":[1]}' });
    expect(partToV025({ raw: 'aGk=' }, textOnly).kind).toBe('file');
  });
});

describe('0.2.5 part schema tolerance', () => {
  it('accepts `type` as an alias of `kind` and `file.data` as an alias of `file.bytes`', () => {
    expect(V025Part.parse({ type: 'text', text: 'hi' })).toStrictEqual({ kind: 'text', text: 'hi' });
    expect(V025Part.parse({ kind: 'file', file: { data: 'aGk=', name: 'a' } })).toStrictEqual({ kind: 'file', file: { bytes: 'aGk=', name: 'a' } });
  });
  it('rejects files with both or neither of bytes/uri, and non-object data', () => {
    expect(V025Part.safeParse({ kind: 'file', file: { bytes: 'a', uri: 'b' } }).success).toBe(false);
    expect(V025Part.safeParse({ kind: 'file', file: { name: 'x' } }).success).toBe(false);
    expect(V025Part.safeParse({ kind: 'data', data: [1] }).success).toBe(false);
    expect(V025Part.safeParse({ kind: 'image', url: 'x' }).success).toBe(false);
  });
  it('is strict about what Bailian requires of a message', () => {
    const ok = { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'x' }] };
    expect(V025Message.safeParse(ok).success).toBe(true);
    for (const key of ['kind', 'role', 'messageId', 'parts'] as const) {
      const { [key]: _, ...without } = ok;
      expect(V025Message.safeParse(without).success).toBe(false);
    }
    expect(V025Message.safeParse({ ...ok, role: 'ROLE_USER' }).success).toBe(false);
    expect(V025Message.safeParse({ ...ok, parts: [] }).success).toBe(false);
    expect(V025Message.safeParse({ ...ok, messageId: '' }).success).toBe(false);
  });
});

describe('messages', () => {
  const v025: V025Message = {
    kind: 'message',
    messageId: 'm-1',
    role: 'user',
    contextId: 'c-1',
    taskId: 't-1',
    referenceTaskIds: ['t-0'],
    extensions: ['https://ex.com/ext/v1'],
    metadata: { k: 'v' },
    parts: [{ kind: 'text', text: 'hello' }],
  };
  const v1: Message = {
    messageId: 'm-1',
    role: 'ROLE_USER',
    contextId: 'c-1',
    taskId: 't-1',
    referenceTaskIds: ['t-0'],
    extensions: ['https://ex.com/ext/v1'],
    metadata: { k: 'v' },
    parts: [{ text: 'hello' }],
  };

  it('0.2.5 → 1.0 strips kind and converts the role', () => {
    expect(messageToV1(v025, profile)).toStrictEqual(v1);
  });
  it('1.0 → 0.2.5 adds kind and converts the role', () => {
    expect(messageToV025(v1, profile)).toStrictEqual(v025);
    expect(messageToV025({ ...v1, role: 'ROLE_AGENT' }, profile).role).toBe('agent');
  });
  it('does not carry unknown fields to 1.0 (strict ProtoJSON parsers reject them)', () => {
    const parsed = V025Message.parse({ ...v025, surprise: 1 });
    expect(messageToV1(parsed, profile)).not.toHaveProperty('surprise');
  });
});
