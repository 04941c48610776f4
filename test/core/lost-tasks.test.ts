import { describe, expect, it } from 'vitest';
import { createLostTasks } from '../../src/core/lost-tasks.js';

describe('a task the agent does not know', () => {
  it('is lost once the agent has kept saying so for the window, and not before; an answer in between starts it again', () => {
    let now = 1_000;
    const lost = createLostTasks(5_000, () => now);
    expect(lost.notFound('t')).toBe(false);
    now += 4_999;
    expect(lost.notFound('t')).toBe(false);
    now += 1;
    expect(lost.notFound('t')).toBe(true);
    lost.found('t');
    expect(lost.notFound('t')).toBe(false);
    expect(lost.notFound('other')).toBe(false);
  });

  it('with a window of 0, at the first not-found', () => {
    expect(createLostTasks(0).notFound('t')).toBe(true);
  });
});
