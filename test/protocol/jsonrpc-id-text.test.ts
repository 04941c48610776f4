import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { topLevelIdText } from '../../src/protocol/jsonrpc-id-text.js';

/** The scanner's answer, checked against JSON.parse first: it is only ever given text JSON.parse accepted. */
function idText(text: string): string | undefined {
  JSON.parse(text);
  return topLevelIdText(text);
}

describe('topLevelIdText', () => {
  it.each([
    ['a big integer', '{"jsonrpc":"2.0","id":12345678901234567890,"method":"m"}', '12345678901234567890'],
    ['past 2^53', '{"id":9007199254740993}', '9007199254740993'],
    ['a fraction JSON.parse rounds to 1', '{"method":"m","id":1.0000000000000001}', '1.0000000000000001'],
    ['a negative exponent form', '{"id":-1.5E+3 }', '-1.5E+3'],
    ['minus zero', '{"id":-0}', '-0'],
    ['a string', '{"id":"a\\"b"}', '"a\\"b"'],
    ['null', '{"id":null}', 'null'],
    ['whitespace everywhere', ' \n\t{ \r\n "id" \t:\n 12345678901234567890 \n} \n', '12345678901234567890'],
    ['the last of duplicate keys, as JSON.parse keeps', '{"id":1,"method":"m","id":12345678901234567890}', '12345678901234567890'],
    ['the last even when it is a string', '{"id":12345678901234567890,"id":"x"}', '"x"'],
    ['an escaped key that spells id', '{"\\u0069d":12345678901234567890}', '12345678901234567890'],
    ['an escaped key, last of two', '{"id":1,"\\u0069\\u0064":9007199254740993}', '9007199254740993'],
  ])('%s', (_name, text, expected) => {
    expect(idText(text)).toBe(expected);
  });

  it.each([
    ['an id only inside params', '{"jsonrpc":"2.0","method":"m","params":{"id":12345678901234567890}}'],
    ['an id inside an array', '{"params":[{"id":1},{"id":2}]}'],
    ['an id inside a string value', '{"method":"{\\"id\\":12345678901234567890}"}'],
    ['a key that only ends in id', '{"x\\"id":12345678901234567890}'],
    ['a key id with an escaped character before it', '{"\\\\id":12345678901234567890}'],
    ['no members', '{ }'],
    ['not an object', '[{"id":1}]'],
    ['a string body', '"{\\"id\\":1}"'],
    ['a number body', '12345678901234567890'],
  ])('none for %s', (_name, text) => {
    expect(idText(text)).toBeUndefined();
  });

  it('skips nested values holding brackets, quotes and backslashes in their strings', () => {
    const params = { text: 'a } ] { [ " \\ \\" "}', deep: [[{ '}': ['"id":7'] }], { a: '\\' }], path: 'C:\\dir\\' };
    const text = `{"jsonrpc":"2.0","params":${JSON.stringify(params)},"method":"x","id":9007199254740993}`;
    expect(idText(text)).toBe('9007199254740993');
  });

  it('finds an id after a large string (a file in base64) and after many members', () => {
    const bytes = 'QUJD'.repeat(250_000);
    const members = Array.from({ length: 500 }, (_, index) => `"k${index}":[${index},{"id":${index}}]`).join(',');
    expect(idText(`{"params":{"bytes":"${bytes}"},${members},"id":12345678901234567890}`)).toBe('12345678901234567890');
  });

  it('reads the member JSON.parse keeps, in any object with an id placed anywhere (property)', () => {
    const idValue = fc.oneof(
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom('1.0000000000000001', '-0', '1e2', '0.10', '1E-7'),
      fc.string().map((text) => JSON.stringify(text)),
      fc.constant('null'),
    );
    const key = fc.oneof(fc.string(), fc.constantFrom('id', 'Id', 'ids', 'i', 'x"id', '\\id'));
    const member = fc.tuple(key, fc.jsonValue()).map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
    const idMember = fc.tuple(fc.constantFrom('"id"', '"\\u0069d"', '"i\\u0064"'), idValue).map(([name, value]) => ({ name, value }));
    const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n');
    fc.assert(
      fc.property(fc.array(fc.oneof(member, idMember), { maxLength: 8 }), space, (members, ws) => {
        const text = `${ws}{${ws}${members.map((entry) => (typeof entry === 'string' ? entry : `${entry.name}${ws}:${ws}${entry.value}`)).join(`${ws},${ws}`)}${ws}}${ws}`;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const found = topLevelIdText(text);
        const isId = (entry: (typeof members)[number]): boolean =>
          typeof entry !== 'string' || Object.hasOwn(JSON.parse(`{${entry}}`) as object, 'id');
        const last = members.findLast(isId);
        if (last === undefined) {
          expect(found).toBeUndefined();
          return;
        }
        // The text of the last id member written, which is the one JSON.parse kept.
        expect(found).toBe(typeof last === 'string' ? last.slice(last.indexOf('":') + 2) : last.value);
        expect(JSON.stringify(JSON.parse(found as string))).toBe(JSON.stringify(parsed.id));
      }),
      { numRuns: 500 },
    );
  });
});
