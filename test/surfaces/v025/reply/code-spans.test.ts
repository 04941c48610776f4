/** Whether the reply stands inside Markdown code, read chunk by chunk (code-spans.ts). */
import { describe, expect, it } from 'vitest';
import { inCode, NO_CODE, scanCode, type CodeScan } from '../../../../src/surfaces/v025/reply/code-spans.js';

const after = (...chunks: string[]): boolean => inCode(chunks.reduce(scanCode, NO_CODE));

describe('code spans', () => {
  it('a fence opens a block once its line ends, and a fence as long or longer of the same mark closes it', () => {
    expect(after('```')).toBe(true); // an inline span opened by a run of three, as far as this line shows
    expect(after('```hcl\n')).toBe(true);
    expect(after('```hcl\nresource "x" {}\n```\n')).toBe(false);
    // On its closing line, before the line break: what comes next is outside the block (a fence cut short is not).
    expect(after('```hcl\nresource "x" {}\n', '```')).toBe(false);
    expect(after('```hcl\nresource "x" {}\n', '``')).toBe(true);
    expect(after('~~~\n')).toBe(true);
    expect(after('````\n```\n')).toBe(true);
    expect(after('````\n```\n````\n')).toBe(false);
    expect(after('~~~\n```\n')).toBe(true);
    expect(after('  ```yaml\nkey: 1\n', '``', '`\n')).toBe(false);
    // Not a fence: four spaces in, or an info string with a backtick.
    expect(after('    ```\n')).toBe(false);
    expect(after('```a`b\n')).toBe(false);
  });

  it('an inline span lasts to its closing run on the same line, also when a run is split between chunks', () => {
    expect(after('call `get')).toBe(true);
    expect(after('call `get', 'User`')).toBe(false);
    expect(after('call ``a')).toBe(true);
    expect(after('call ``a', '`', '`')).toBe(false);
    expect(after('call `get\n')).toBe(false);
  });

  it('keeps the same scan as reading the text a character at a time, however it is cut: the line to one past a fence line, a surrogate pair whole', () => {
    // The scan as it was written first, one code point at a time (scanCode takes the line in slices).
    const fenceLine = /^ {0,3}(`{3,}|~{3,})(.*)$/;
    const fenceAfter = (fence: string, line: string): string => {
      const match = fenceLine.exec(line);
      if (!match || line.length > 80) return fence;
      const [, marks = '', rest = ''] = match;
      if (fence === '') return marks.startsWith('`') && rest.includes('`') ? '' : marks;
      return marks.charAt(0) === fence.charAt(0) && marks.length >= fence.length && rest.trim() === '' ? '' : fence;
    };
    const byCharacter = (scan: CodeScan, text: string): CodeScan => {
      let { fence, opener, line, ticks, afterTick, opening } = scan;
      for (const char of text) {
        if (char === '\n') {
          const next = fenceAfter(fence, line);
          if (next !== fence) opener = next === '' ? '' : line;
          [fence, line, ticks, afterTick, opening] = [next, '', 0, false, false];
          continue;
        }
        if (line.length <= 80) line += char;
        if (char === '`') {
          if (!afterTick) opening = ++ticks % 2 === 1;
        } else {
          if (opening && (char === ' ' || char === '\t')) ticks--;
          opening = false;
        }
        afterTick = char === '`';
      }
      return { fence, opener, line, ticks, afterTick, opening };
    };
    const pieces = ['a', 'b', '`', '```', '~~~', ' ', '\t', '\n', '😀', '\ud83d', '\ude00', '中', 'x'.repeat(77), 'hcl'];
    let seed = 7;
    const random = (below: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % below;
    for (let round = 0; round < 400; round++) {
      const text = Array.from({ length: 1 + random(40) }, () => pieces[random(pieces.length)]).join('');
      const cuts = [0, ...Array.from({ length: random(4) }, () => random(text.length + 1)).sort((a, b) => a - b), text.length];
      const chunks = cuts.slice(1).map((cut, at) => text.slice(cuts[at], cut));
      expect(chunks.reduce(scanCode, NO_CODE), JSON.stringify(chunks)).toEqual(chunks.reduce(byCharacter, NO_CODE));
    }
    // A pair that crosses the line's length is kept whole; one that ends it at its length, too.
    expect(scanCode(NO_CODE, `${'x'.repeat(80)}😀y`).line).toBe(`${'x'.repeat(80)}😀`);
    expect(scanCode(NO_CODE, `${'x'.repeat(79)}😀y`).line).toBe(`${'x'.repeat(79)}😀`);
  });
});
