/** Whether the reply stands inside Markdown code, read chunk by chunk (code-spans.ts). */
import { describe, expect, it } from 'vitest';
import { inCode, NO_CODE, scanCode } from '../../../../src/surfaces/v025/reply/code-spans.js';

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
});
