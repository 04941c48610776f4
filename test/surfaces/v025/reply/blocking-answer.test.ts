import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { createTurnReply, replyEvents } from '../../../../src/surfaces/v025/reply/index.js';
import { options, shape, spec, status, submitted } from './support.js';

/** An agent that asks the caller to sign in and then holds its stream open (a2a-js on auth-required). */
function signInThenHold(): { events: AsyncIterable<StreamResponse>; returned: () => boolean } {
  let returned = false;
  async function* events(): AsyncGenerator<StreamResponse> {
    try {
      yield submitted;
      yield status('TASK_STATE_AUTH_REQUIRED', 'Please sign in first.');
      await new Promise(() => undefined);
    } finally {
      returned = true;
    }
  }
  return { events: events(), returned: () => returned };
}

describe('a blocking caller (message/send) of an agent that waits on auth-required with its stream open', () => {
  it('is answered at the interruption, the agent’s words in it, and the upstream call ends', async () => {
    const agent = signInThenHold();
    const out = [];
    for await (const event of replyEvents(agent.events, createTurnReply(options(spec)), { answersAtInterruption: true })) out.push(event);
    expect(shape(out)).toEqual(['task:submitted', 'status:auth-required:open', 'status:auth-required:final']);
    expect(JSON.stringify(out.at(-1))).toContain('Please sign in first.');
    expect(agent.returned()).toBe(true);
  });

  it('a streaming caller under the spec profile follows the agent on (it may go on after a sign-in elsewhere)', async () => {
    const agent = signInThenHold();
    const out: unknown[] = [];
    const reading = (async () => {
      for await (const event of replyEvents(agent.events, createTurnReply(options(spec)))) out.push(event);
    })();
    const stillOpen = await Promise.race([reading.then(() => false), new Promise((resolve) => setTimeout(() => resolve(true), 100))]);
    expect(stillOpen).toBe(true);
    expect(out).toHaveLength(2);
  });
});

describe('a blocking caller (message/send) of a follow-up whose stream opens with the task still waiting on the question', () => {
  it('is answered at the end of the turn, not at the opening Task', async () => {
    async function* followUp(): AsyncGenerator<StreamResponse> {
      yield { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } };
      yield status('TASK_STATE_WORKING', 'Deploying to hangzhou.');
      yield status('TASK_STATE_COMPLETED');
    }
    const out = [];
    for await (const event of replyEvents(followUp(), createTurnReply(options(spec)), { answersAtInterruption: true })) out.push(event);
    expect(shape(out).at(-1)).toBe('status:completed:final');
    expect(JSON.stringify(out)).toContain('Deploying to hangzhou.');
  });
});
