/**
 * A message's digest (message-digest.ts) is compared with digests that notes of the running release hold (the facade's
 * sent-turn and cut-turn notes, in Redis across a rollout): for the same message it must stay byte for byte what that
 * release computed. The pinned values were computed by the release before the digest's fast paths.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { messageDigest } from '../../src/core/message-digest.js';
import type { Part } from '../../src/model/index.js';

const pinned: Array<[string, Part[], string | undefined]> = [
  ['ASCII text', [{ text: 'hi' }], '072336728bb3705075657942feb7d62f'],
  ['ASCII text with runs of white space', [{ text: '  Create a  VPC,\n\tin Hangzhou ' }], 'b3e3caef7afd01f44ce4432ba7e23959'],
  ['Chinese text', [{ text: '请帮我创建一个专有网络，地域杭州' }], '1d658c6ac6fc5841ac4635d57638ba38'],
  ['decomposed (NFD) text', [{ text: 'Cafe\u0301 au lait' }], '6b4f28993578f90a45ee0938113857ba'],
  ['composed (NFC) text', [{ text: 'Caf\u00e9 au lait' }], '6b4f28993578f90a45ee0938113857ba'],
  ['text with Unicode white space', [{ text: '\u3000继续\u00a0 下一步\u2003' }], 'ed49877d5d102f648e6c5e553ee328f0'],
  ['text JSON escapes', [{ text: 'say "hi" \\ \u0001 \ud800' }], '6212be258f3f96b928361502c63756ed'],
  ['text in two parts', [{ text: 'Create a ' }, { text: 'VPC' }], '6876715222aada23876ba322281ac2a9'],
  [
    'text with a file',
    [{ text: 'What is in it?' }, { url: 'https://a.example/1.png', mediaType: 'image/png', filename: '1.png' }],
    'a783748cf09f4358eab5804a3f4044c4',
  ],
  ['raw bytes alone', [{ raw: 'aGVsbG8=', mediaType: 'text/plain' }], '82a5c3756a9920dd3f121a82f56fae7a'],
  ['data alone', [{ data: { decision: 'allow_once', nested: { n: 1, list: [true, null] } } }], 'f82c198f8a7c873f59915c703b0adff5'],
  ['white space alone', [{ text: '  ' }], undefined],
];

describe('messageDigest stays what the release before computed', () => {
  it.each(pinned)('%s', (_name, parts, digest) => {
    expect(messageDigest({ parts })).toBe(digest);
  });
});

/** The digest as message-digest.ts defines it, written out plainly: what any fast path must agree with. */
const definition = (parts: Part[]): string | undefined => {
  const text = parts
    .map((part) => part.text ?? '')
    .join('')
    .normalize('NFC')
    .trim()
    .replace(/\s+/gu, ' ');
  const others = parts
    .filter((part) => part.text === undefined)
    .map((part) => [part.raw ?? null, part.url ?? null, part.data ?? null, part.mediaType ?? null, part.filename ?? null]);
  if (text === '' && others.length === 0) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([text, others]))
    .digest('hex')
    .slice(0, 32);
};

it('any text, ASCII or not, and any file beside it: the digest its definition gives', () => {
  const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme-composite' }), fc.string({ unit: 'binary' }), fc.constantFrom(' ', '\n', 'e\u0301'));
  const part = fc.oneof(
    text.map((value): Part => ({ text: value })),
    fc.record({ url: fc.webUrl(), mediaType: fc.constantFrom('image/png', 'text/plain') }, { requiredKeys: ['url'] }),
  );
  fc.assert(
    fc.property(fc.array(part, { maxLength: 4 }), (parts) => {
      expect(messageDigest({ parts })).toBe(definition(parts));
    }),
  );
});

it('on a Node without the one-shot crypto.hash (before 20.12): the same digests', async () => {
  vi.resetModules();
  vi.doMock('node:crypto', async (importOriginal) => {
    const crypto = await importOriginal<typeof import('node:crypto')>();
    return { ...crypto, hash: undefined };
  });
  try {
    const older = await import('../../src/core/message-digest.js');
    for (const [, parts, digest] of pinned) expect(older.messageDigest({ parts })).toBe(digest);
  } finally {
    vi.doUnmock('node:crypto');
  }
});
