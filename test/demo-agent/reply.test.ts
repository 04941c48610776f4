import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { demoReply, planTurn, SLOW_EXTRA_CHUNKS, TEXT_ONLY_MESSAGE } from '../../src/demo-agent/index.js';

describe('demoReply', () => {
  it('echoes with the turn number, cut into word chunks', () => {
    expect(demoReply('hello world', 2)).toEqual({
      chunks: ['Echo ', '(turn ', '2): ', 'hello ', 'world'],
      full: 'Echo (turn 2): hello world',
    });
  });

  it('always joins its chunks to the full text, with no empty chunk', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 1000 }), (text, turn) => {
        const reply = demoReply(text, turn);
        expect(reply.chunks.join('')).toBe(reply.full);
        expect(reply.full.startsWith(`Echo (turn ${turn}): `)).toBe(true);
        expect(reply.chunks.every((chunk) => chunk.length > 0)).toBe(true);
      }),
    );
  });

  it('adds many chunks for slow: prompts', () => {
    const reply = demoReply('slow: x', 1);
    expect(reply.chunks.slice(-SLOW_EXTRA_CHUNKS)).toEqual(Array(SLOW_EXTRA_CHUNKS).fill('.'));
    expect(reply.full).toBe(`Echo (turn 1): slow: x${'.'.repeat(SLOW_EXTRA_CHUNKS)}`);
  });
});

describe('planTurn', () => {
  it('fails empty and fail: prompts deterministically', () => {
    expect(planTurn('  ', 1)).toEqual({ kind: 'fail', message: TEXT_ONLY_MESSAGE });
    expect(planTurn('fail: disk full', 1)).toEqual({ kind: 'fail', message: 'disk full' });
    expect(planTurn('fail:', 1)).toEqual({ kind: 'fail', message: 'Demo failure.' });
  });

  it('counts usage from words and chunks', () => {
    const plan = planTurn('a b c', 1);
    expect(plan.kind === 'reply' && plan.usage).toEqual({ inputTokens: 3, outputTokens: 6, totalTokens: 9 });
  });
});
