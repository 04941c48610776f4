import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { withFields } from '../../src/model/index.js';

// %HaveSameMap tells whether two objects share V8's hidden class; natives syntax is enabled for the
// code compiled after the flag is set.
setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- natives syntax cannot be written in TypeScript
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const wireTask = (n: number): Record<string, unknown> => JSON.parse(`{"id":"t${n}","contextId":"c${n}","status":{"state":"TASK_STATE_WORKING"}}`);

describe('withFields', () => {
  it('gives every copy with an added key the same hidden class, also once optimised', () => {
    const copies = Array.from({ length: 5_000 }, (_, n) => withFields(wireTask(n), { history: [] }));
    expect(sameHiddenClass(copies[4_998]!, copies[4_999]!)).toBe(true);
    expect(sameHiddenClass(copies[0]!, copies[4_999]!)).toBe(true);
  });

  it('is what the literal it replaces is: the base’s keys in order, then the new ones, later values winning', () => {
    const base = { a: 1, b: 2 };
    const merged = withFields(base, { b: 3, c: 4 });
    expect(merged).toEqual({ a: 1, b: 3, c: 4 });
    expect(Object.keys(merged)).toEqual(['a', 'b', 'c']);
    expect(base).toEqual({ a: 1, b: 2 });
    expect(withFields(undefined, { c: 4 })).toEqual({ c: 4 });
    expect(withFields({ a: 1 }, undefined)).toEqual({ a: 1 });
  });

  it('keeps a `__proto__` key off the wire a plain key, as a spread does', () => {
    const fromWire = JSON.parse('{"__proto__":{"admin":true},"a":1}') as object;
    const merged = withFields(fromWire, { b: 2 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.admin).toBeUndefined();
    expect(Object.keys(merged)).toEqual(['__proto__', 'a', 'b']);
  });
});
