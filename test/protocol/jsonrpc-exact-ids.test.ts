import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactNumberId, exactId, jsonRpcText } from '../../src/protocol/jsonrpc-exact-ids.js';

/** The id an endpoint answers a body with: its top-level id as JSON.parse reads it, kept exact where it must be. */
const idOf = (body: string): unknown => exactId((JSON.parse(body) as { id: unknown }).id, body);

describe('exactId', () => {
  it.each([
    ['12345678901234567890', '{"jsonrpc":"2.0","id":12345678901234567890,"method":"m"}'],
    ['9007199254740993', '{"jsonrpc":"2.0","method":"m","params":{},"id":9007199254740993}'],
    ['1.0000000000000001', '{"jsonrpc":"2.0","id":1.0000000000000001,"method":"m"}'],
    ['1.0', '{"id":1.0}'],
    ['1e2', '{"id" : 1e2}'],
    ['-0', '{"id":-0}'],
    // Ends on the id, but not as JavaScript writes the number: the last member is read.
    ['1.0000000000000001', '{"method":"m","id":1.0000000000000001}'],
    // A duplicate: JSON.parse kept the last, whose text is not the first's.
    ['1.0000000000000001', '{"id":1,"method":"m","id":1.0000000000000001}'],
  ])('keeps %s as written', (text, body) => {
    const id = idOf(body);
    expect(id).toBeInstanceOf(ExactNumberId);
    expect((id as ExactNumberId).text).toBe(text);
    expect((id as ExactNumberId).value).toBe((JSON.parse(body) as { id: number }).id);
  });

  it.each([
    ['a string', '{"jsonrpc":"2.0","id":"12345678901234567890","method":"m"}', '12345678901234567890'],
    ['null', '{"id":null}', null],
    ['a small integer last (the a2a-js clients)', '{"jsonrpc":"2.0","method":"m","params":{"id":1.5},"id":7}', 7],
    ['a small integer first', '{"jsonrpc":"2.0","id":7,"method":"m"}', 7],
    ['a small integer, pretty-printed', '{\n  "id": 7,\n  "method": "m"\n}\n', 7],
    ['a fraction JavaScript writes the same way', '{"id":1.5}', 1.5],
    ['a large number JavaScript writes the same way', '{"id":1e+21}', 1e21],
  ])('leaves %s as it is', (_name, body, expected) => {
    expect(idOf(body)).toBe(expected);
  });

  it('answers with the text of the id JSON.parse kept, wherever it sits and however often it repeats (property)', () => {
    const number = fc.oneof(
      fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom('1.0000000000000001', '-0', '1.0', '1e2', '9007199254740993', '0.30000000000000004'),
    );
    const other = fc
      .tuple(fc.constantFrom('"jsonrpc"', '"method"', '"params"', '"x\\"id"'), fc.jsonValue())
      .map(([key, value]) => `${key}:${JSON.stringify(value)}`);
    const nestedId = number.map((text) => `"params":{"id":${text},"message":{"id":"x"}}`);
    const id = number.map((text) => ({ text }));
    const space = fc.constantFrom('', ' ', '\n  ');
    fc.assert(
      fc.property(fc.array(fc.oneof(other, nestedId, id), { maxLength: 6 }), id, fc.nat(6), space, (members, last, at, ws) => {
        // At least one top-level id, at any place; the last one written is the one JSON.parse keeps.
        const all = [...members.slice(0, at), last, ...members.slice(at)];
        const kept = all.findLast((entry): entry is { text: string } => typeof entry !== 'string') as { text: string };
        const body = `{${all.map((entry) => (typeof entry === 'string' ? entry : `"id":${ws}${entry.text}`)).join(`,${ws}`)}}${ws}`;
        const answered = exactId((JSON.parse(body) as { id: number }).id, body);
        expect(answered instanceof ExactNumberId ? answered.text : String(answered)).toBe(kept.text);
      }),
      { numRuns: 1000 },
    );
  });

  it('does not take a key that only ends in id for the last member', () => {
    // The last member's key is `x"id`: the top-level id is the first, written 1.0.
    const id = idOf('{"id":1.0,"x\\"id":1}');
    expect((id as ExactNumberId).text).toBe('1.0');
  });
});

describe('jsonRpcText', () => {
  it('writes an exact id as the caller wrote it, the rest as JSON.stringify does', () => {
    const id = new ExactNumberId('12345678901234567890', 12345678901234567000);
    const text = jsonRpcText({ jsonrpc: '2.0', id, result: { kind: 'task', id: 'x', n: 1 } });
    expect(text).toBe('{"jsonrpc":"2.0","id":12345678901234567890,"result":{"kind":"task","id":"x","n":1}}');
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 12345678901234567000, result: { kind: 'task', id: 'x', n: 1 } });
    expect(jsonRpcText({ jsonrpc: '2.0', id })).toBe('{"jsonrpc":"2.0","id":12345678901234567890}');
  });

  it('is JSON.stringify for any other id, and an exact id read elsewhere is its number', () => {
    const envelope = { jsonrpc: '2.0' as const, id: 7, error: { code: -32600, message: 'm' } };
    expect(jsonRpcText(envelope)).toBe(JSON.stringify(envelope));
    expect(jsonRpcText({ jsonrpc: '2.0', id: null, result: null })).toBe('{"jsonrpc":"2.0","id":null,"result":null}');
    expect(JSON.stringify({ id: new ExactNumberId('1.0000000000000001', 1) })).toBe('{"id":1}');
  });
});
