/**
 * A caller's tasks/resubscribe to a turn at work (joined-turn.ts): what the working Task holds of the turn is shown
 * first, then the live events past it, through the same reply reducer as any turn. What a Bailian reader reads is
 * the whole reply once: the snapshot's words, not again when the agent sends them live as the subscription listens
 * (a2a-js 1.x) or restates them at the end (the demo agent).
 */
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../../../src/model/index.js';
import { joinedTurn } from '../../../../src/surfaces/v025/tasks/joined-turn.js';
import { collect } from '../../../support/collect.js';
import { readText, run } from '../reply/support.js';

const user = (text: string, messageId: string): Message => ({ messageId, role: 'ROLE_USER', parts: [{ text }] });
const agent = (text: string, messageId: string): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
const working = (message?: Message): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', ...(message ? { message } : {}) } },
});
const completed = (message?: Message): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED', ...(message ? { message } : {}) } },
});
const chunk = (text: string, append: boolean, lastChunk = false): StreamResponse => ({
  artifactUpdate: { taskId: 'T', contextId: 'C', append, lastChunk, artifact: { artifactId: 'ticks', parts: [{ text }] } },
});

/** What a Bailian reader reads of a resubscription whose agent answers with `events` (the Task first); `recorded`: the gateway's record. */
async function joinedText(events: StreamResponse[], recorded?: Task): Promise<string> {
  async function* source() {
    yield* events;
  }
  return readText(run(await collect(joinedTurn(source(), recorded))));
}

describe('joinedTurn', () => {
  it('a 0.2.5 agent’s appended chunks: those the Task holds, then the live ones', async () => {
    const snapshot: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: agent('Working on it...', 'w') },
      history: [user('ticks', 'u'), agent('Working on it...', 'w')],
      artifacts: [{ artifactId: 'ticks', parts: [{ text: 'tick 0. ' }, { text: 'tick 1. ' }] }],
    };
    expect(await joinedText([{ task: snapshot }, chunk('tick 2. ', true), chunk('tick 3.', true, true), completed()])).toBe(
      'Working on it...\ntick 0. tick 1. tick 2. tick 3.',
    );
  });

  it('a later Task at work (a2a-js 0.2.5 opens its stream with the task it loaded): what it holds past the first, once', async () => {
    const at = (ticks: string[]): Task => ({
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: agent('Working on it...', 'w') },
      history: [user('ticks', 'u'), agent('Working on it...', 'w')],
      artifacts: [{ artifactId: 'ticks', parts: ticks.map((text) => ({ text })) }],
    });
    const events = [
      { task: at(['tick 0. ', 'tick 1. ']) },
      { task: at(['tick 0. ', 'tick 1. ', 'tick 2. ']) },
      chunk('tick 3.', true, true),
      completed(),
    ];
    expect(await joinedText(events)).toBe('Working on it...\ntick 0. tick 1. tick 2. tick 3.');
  });

  it('an a2a-js 1.x agent sends what it said as the subscription listened, live too: shown once', async () => {
    const said = agent('First, the network. ', 'a');
    const snapshot: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: said },
      history: [user('plan', 'u'), said],
      artifacts: [{ artifactId: 'ticks', parts: [{ text: 'tick 0. ' }, { text: 'tick 1. ' }] }],
    };
    // Its SDK listens to the task before it loads it: the last chunk it stored is sent live as well.
    const live = [chunk('tick 1. ', true), chunk('tick 2.', true, true), completed()];
    expect(await joinedText([{ task: snapshot }, ...live])).toBe('First, the network. \ntick 0. tick 1. tick 2.');
  });

  it('an agent that restates its whole reply at the end (the demo agent): the reply once', async () => {
    const snapshot: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: agent('one ', 'T-message') },
      history: [user('slow: one two', 'u'), agent('Echo: ', 'T-message'), agent('slow: ', 'T-message'), agent('one ', 'T-message')],
    };
    const live = [working(agent('two', 'T-message')), completed(agent('Echo: slow: one two', 'final'))];
    expect(await joinedText([{ task: snapshot }, ...live])).toBe('Echo: slow: one two');
  });

  it('the words of an earlier turn of the task are not this turn’s', async () => {
    const snapshot: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: agent('Deploying to cn-hangzhou.', 'd') },
      history: [user('deploy', 'u1'), agent('Which region?', 'q'), user('cn-hangzhou', 'u2'), agent('Deploying to cn-hangzhou.', 'd')],
    };
    expect(await joinedText([{ task: snapshot }, working(agent(' Done.', 'e')), completed()])).toBe('Deploying to cn-hangzhou. Done.');
  });

  it('a follow-up the agent’s task lacks (a2a-js 0.2.5), the record holds: the turn starts there, the question before it is not its', async () => {
    const question = agent('Which region?', 'q');
    const at = (ticks: string[]): Task => ({
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING' },
      history: [user('deploy', 'u1'), question],
      artifacts: [{ artifactId: 'ticks', parts: ticks.map((text) => ({ text })) }],
    });
    const recorded: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING' },
      history: [user('deploy', 'u1'), question, user('cn-hangzhou', 'u2')],
    };
    const events = [{ task: at(['tick 0. ']) }, { task: at(['tick 0. ', 'tick 1. ']) }, chunk('tick 2.', true, true), completed()];
    expect(await joinedText(events, recorded)).toBe('tick 0. tick 1. tick 2.');
  });

  it('a Task that is no longer at work passes as it came', async () => {
    const finished: StreamResponse = {
      task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agent('Which region?', 'q') } },
    };
    expect(
      await collect(
        joinedTurn(
          (async function* () {
            yield finished;
          })(),
        ),
      ),
    ).toEqual([finished]);
  });
});
