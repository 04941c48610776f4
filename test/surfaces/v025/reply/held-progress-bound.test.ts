/**
 * Working messages held behind an open artifact (open-artifact.ts) are bounded: an agent that leaves an
 * artifact open mid-line and then streams its answer a token at a time, each token a message of its own,
 * has its answer shown as it streams once the hold is full, not all of it at the turn's end.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { createTurnReply } from '../../../../src/surfaces/v025/reply/index.js';
import { MAX_HELD_CHARS, MAX_HELD_MESSAGES } from '../../../../src/surfaces/v025/reply/open-artifact.js';
import { artifact, options, readText, status, submitted } from './support.js';

const plan = [artifact('plan', [{ text: 'Plan: ' }], { lastChunk: false }), artifact('plan', [{ text: 'create a VPC' }], { append: true })];
const token = (text: string, n: number): StreamResponse => status('TASK_STATE_WORKING', text, {}, `t${n}`);

/** What the caller has read after each event, streamed. */
function streamed(events: StreamResponse[]): string[] {
  const reply = createTurnReply(options());
  let read = '';
  return events.map((event) => (read += readText(reply.push(event))));
}

describe('progress held behind an artifact left open mid-line', () => {
  it('a few messages wait for the artifact, as before', () => {
    const tokens = ['The', ' VPC', ' is', ' ready', '.'].map(token);
    const seen = streamed([submitted, ...plan, ...tokens]);
    expect(seen.at(-1)).toBe('Plan: create a VPC');
  });

  it(`past ${MAX_HELD_MESSAGES} messages, what is held is shown, and the tokens after it as they come`, () => {
    const tokens = Array.from({ length: 200 }, (_, i) => token(` w${i}`, i));
    const seen = streamed([submitted, ...plan, ...tokens]);
    const words = Array.from({ length: 200 }, (_, i) => ` w${i}`);
    expect(seen[2 + MAX_HELD_MESSAGES]).toBe('Plan: create a VPC');
    expect(seen[3 + MAX_HELD_MESSAGES]).toBe(`Plan: create a VPC\n${words.slice(0, MAX_HELD_MESSAGES + 1).join('')}`);
    expect(seen.at(-1)).toBe(`Plan: create a VPC\n${words.join('')}`);
  });

  it(`past ${MAX_HELD_CHARS} characters, what is held is shown`, () => {
    const long = 'x'.repeat(MAX_HELD_CHARS / 2);
    const seen = streamed([submitted, ...plan, token(` ${long}`, 1), token(` ${long}`, 2), token(' end', 3)]);
    expect(seen.at(-1)).toBe(`Plan: create a VPC\n ${long} ${long} end`);
  });

  it('20,000 token messages behind an artifact left open mid-line all read, in order', () => {
    const tokens = Array.from({ length: 20_000 }, (_, i) => token(` w${i}`, i));
    const seen = streamed([submitted, ...plan, ...tokens, status('TASK_STATE_COMPLETED')]);
    expect(seen.at(-1)).toContain(' w19998 w19999');
  });
});
