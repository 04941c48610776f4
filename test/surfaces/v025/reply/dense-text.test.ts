/**
 * White space as the reply's rules read it (dense-text.ts): code unit by code unit, exactly what `\s` and a copy
 * without it (`replace(/\s+/g, '')`) read, which the rules used before.
 */
import { describe, expect, it } from 'vitest';
import { denseLength, isWhiteSpaceCode, sameDense } from '../../../../src/surfaces/v025/reply/dense-text.js';
import { seededRandom } from '../../../support/seeded-random.js';

const WHITE_SPACE = /\s+/g;
const withoutWhiteSpace = (text: string): string => text.replace(WHITE_SPACE, '');

/** Random text of letters, CJK, white space of every kind, and surrogates (pairs, and halves alone). */
function randomText(random: () => number, length: number): string {
  const pool = [
    'a',
    'B',
    '1',
    '.',
    '部',
    '署',
    ' ',
    '\t',
    '\n',
    '\r',
    '\u000b',
    '\f',
    '\u00a0',
    '\u1680',
    '\u2003',
    '\u200a',
    '\u200b',
    '\u2028',
    '\u2029',
    '\u202f',
    '\u205f',
    '\u3000',
    '\ufeff',
    '\u180e',
    '😀',
    '\ud83d',
    '\ude00',
  ];
  let text = '';
  for (let i = 0; i < length; i++) text += pool[Math.floor(random() * pool.length)];
  return text;
}

describe('dense text', () => {
  it('takes every UTF-16 code unit for white space exactly when \\s does, with and without the u flag', () => {
    const differing: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      if (isWhiteSpaceCode(code) !== /\s/.test(char) || isWhiteSpaceCode(code) !== /\s/u.test(char)) differing.push(code.toString(16));
    }
    expect(differing).toEqual([]);
  });

  it('counts and compares texts as their copies without white space do', () => {
    const random = seededRandom(45);
    for (let round = 0; round < 2_000; round++) {
      const a = randomText(random, Math.floor(random() * 24));
      // Half the pairs say the same with other white space, so that equal texts are compared as often as unequal ones.
      const b = round % 2 === 0 ? randomText(random, Math.floor(random() * 24)) : withoutWhiteSpace(a).split('').join('\n ');
      expect(denseLength(a)).toBe(withoutWhiteSpace(a).length);
      expect(sameDense(a, b)).toBe(withoutWhiteSpace(a) === withoutWhiteSpace(b));
      expect(sameDense(b, a)).toBe(withoutWhiteSpace(a) === withoutWhiteSpace(b));
    }
  });

  it('reads a text that is all white space as empty, and one that ends sooner as different', () => {
    expect(denseLength(' \n\t\u3000')).toBe(0);
    expect(sameDense(' \n', '')).toBe(true);
    expect(sameDense('部署 完成', '部署完成\n')).toBe(true);
    expect(sameDense('部署完成', '部署完')).toBe(false);
    expect(sameDense('部署完', '部署完成')).toBe(false);
  });
});
