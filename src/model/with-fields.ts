/**
 * `{ ...base, ...fields }`, written so that every object it makes shares V8's hidden class.
 *
 * In Node 20 (V8 11.3) an object literal that opens with a spread and then adds a key the source
 * did not have (`{ ...task, history }`) gets a hidden class of its own, every time: the clone's class
 * keeps no transitions. Each such object costs a new class and descriptor array in old space (about
 * 200 bytes, freed only by a full GC), a runtime call to make them, and megamorphic property access
 * wherever it goes next. Opening the literal with an empty object takes the ordinary path, whose
 * classes are shared. Spread semantics are kept: own enumerable keys, `__proto__` stays a plain key.
 * `withFields(base, {})` is the copy to take when keys will be added to it afterwards.
 * See docs/performance.md.
 */
export function withFields<T extends object, U extends object>(base: T | undefined, fields: U | undefined): T & U {
  // T & U is what TypeScript itself gives a spread of two generic objects.
  // eslint-disable-next-line no-restricted-syntax -- the one place the pattern is written on purpose
  return { ...{}, ...base, ...fields } as T & U;
}
