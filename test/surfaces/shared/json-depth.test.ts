import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../../src/surfaces/shared/json-depth.js';

/** The reference: the depth of a parsed value, walked recursively (fine for test-sized values). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((max, child) => Math.max(max, depthOf(child)), 0);
}

describe('nestedDeeperThan', () => {
  it('agrees with the depth of the parsed value, whatever the strings hold', () => {
    const tricky = fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', '\\\\', '[[[', '"]}');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(
          fc.string(),
          tricky.map((text) => text.repeat(3)),
          fc.integer(),
          fc.boolean(),
          fc.constant(null),
        ),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(fc.string({ maxLength: 4 }), tricky), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 6 }), (json, max) => {
        const text = JSON.stringify(json);
        // The length shortcut (no scan under 2 * max characters) must not change the answer.
        expect(nestedDeeperThan(text, max)).toBe(depthOf(json) > max);
      }),
      { numRuns: 500 },
    );
  });

  it('counts exactly MAX_JSON_DEPTH levels as allowed and one more as too deep', () => {
    const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(nestedDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestedDeeperThan(`{"a":"${'['.repeat(5_000)}","b":[1]}`)).toBe(false);
    expect(nestedDeeperThan(`{"a":"\\\\","b":${nested(200)}}`)).toBe(true);
  });

  it('scans an 8 MiB text part quickly (strings are skipped, not walked)', () => {
    // Counted, not timed: a walk of every character takes well under 200 ms on an idle host and more on a
    // busy one, so a time bound neither caught it nor held. What the text costs is the characters looked at.
    const text = lookedAt(JSON.stringify({ message: { parts: [{ text: 'y'.repeat(8 * 1024 * 1024) }] } }));
    expect(nestedDeeperThan(text.value)).toBe(false);
    expect(text.looked()).toBeLessThan(100);
  });
});

/** `text` as a String object that counts the characters read one by one (charCodeAt) from it. */
function lookedAt(text: string): { value: string; looked: () => number } {
  let looked = 0;
  const value = Object.assign(Object(text) as object, {
    charCodeAt: (index: number) => (looked++, text.charCodeAt(index)),
  });
  return { value: value as unknown as string, looked: () => looked };
}
