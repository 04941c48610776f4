/**
 * A closing message that says a result again is a repeat when nothing but files or data came between (the
 * agent wrote them, then ends with the result it had said), and is shown again after other words (rules.ts,
 * repeatsShown; ReplyState.sinceMessage): a message of a file or a data part alone says no words.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { artifact, readText, run, status, submitted } from './support.js';

const closing = status('TASK_STATE_COMPLETED', 'Result: PASS', {}, 'end');
const working = (messageId: string, parts: Record<string, unknown>[]): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message: { messageId, role: 'ROLE_AGENT', parts } } },
});

describe('a result said again after a message of files or data only', () => {
  const file = working('f', [{ url: 'https://example.com/report.pdf', filename: 'report.pdf', mediaType: 'application/pdf' }]);
  const data = working('d', [{ data: { checks: 3 } }]);
  // A direct Message after the task started (a 1.0 protocol slip) is read as a message too.
  const direct: StreamResponse = { message: { messageId: 'm', taskId: 'T', contextId: 'C', role: 'ROLE_AGENT', parts: [{ data: { checks: 3 } }] } };

  for (const [name, between] of [
    ['a file', file],
    ['a data part', data],
    ['a direct message of a data part', direct],
  ] as const) {
    it(`${name} between: the closing message is a repeat`, () => {
      const said = status('TASK_STATE_WORKING', 'Result: PASS', {}, 'said');
      const result = artifact('check-1', [{ text: 'Result: PASS' }], { lastChunk: true });
      for (const first of [said, result]) {
        const text = readText(run([submitted, first, between, closing]));
        expect(text.indexOf('Result: PASS')).toBe(text.lastIndexOf('Result: PASS'));
      }
    });
  }

  it('words between: said again, last', () => {
    const said = status('TASK_STATE_WORKING', 'Result: PASS', {}, 'said');
    const words = working('w', [{ text: 'See the report:' }, { url: 'https://example.com/report.pdf', filename: 'report.pdf' }]);
    expect(readText(run([submitted, said, words, closing])).endsWith('\nResult: PASS')).toBe(true);
  });
});
