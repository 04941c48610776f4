/**
 * `statusTimestampAfter` names an instant: a value shaped like RFC 3339 that names none (a day the month lacks,
 * hour 24, second 61, an offset past a day) is refused, -32602, rather than read as another instant (Date.UTC
 * rolls `2026-02-30` over into 2 March) and listing the wrong tasks.
 */
import { describe, expect, it } from 'vitest';
import { afterKeyOf, timestampKey } from '../../../src/core/task-registry/query.js';
import { A2AError } from '../../../src/model/index.js';

describe('afterKeyOf', () => {
  it.each(['2026-02-28T00:00:00Z', '2024-02-29T23:59:59.123456Z', '2026-12-06T10:00:00+08:00', '2026-12-31T23:59:60Z'])('%s is a filter', (after) => {
    expect(afterKeyOf({ statusTimestampAfter: after })).toBe(timestampKey(after));
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-12-06T24:00:00Z',
    '2026-12-06T10:60:00Z',
    '2026-12-06T10:00:61Z',
    '2026-12-06T10:00:00+25:00',
    '2026-13-01T00:00:00Z',
  ])('%s is refused, -32602', (after) => {
    let thrown: unknown;
    try {
      afterKeyOf({ statusTimestampAfter: after });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(A2AError);
    expect((thrown as A2AError).code).toBe(-32602);
  });

  it('no value, or an empty one, is no filter', () => {
    expect(afterKeyOf({})).toBeUndefined();
    expect(afterKeyOf({ statusTimestampAfter: '' })).toBeUndefined();
  });
});
