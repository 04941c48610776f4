/**
 * The event hub (task-event-hub.ts) over an answer in the same task: its stream opens with the task as it stands,
 * still INPUT_REQUIRED (an a2a-js 1.x agent must open every stream with a Task; the gateway opens iac-code's
 * follow-up so too, stream-opening.ts), then works and completes. A subscriber of the task was closed at that opening
 * Task, as if the answer's turn had ended there, and never saw the answer. A status update asking again still ends it.
 */
import { describe, expect, it } from 'vitest';
import { eventTaskState, type StreamResponse } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { ALICE, setup } from './gateway-harness.js';

/** A gateway whose agent asked its question on task T; `answer` feeds the stream of the answer. */
async function askedThenAnswering() {
  const answer = new Feed();
  const { gateway } = setup(
    stubUpstream({
      sendStreamingMessage: (request) =>
        request.message.taskId
          ? answer.stream()
          : new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED', 'Which region?')).stream(),
    }),
  );
  const question = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE);
  // Its feed is never ended: read up to the question, then left.
  for await (const event of question) if (eventTaskState(event) === 'TASK_STATE_INPUT_REQUIRED') break;
  return { gateway, answer };
}

const states = (events: StreamResponse[]) => events.map((event) => `${'task' in event ? 'task' : 'status'}:${eventTaskState(event)}`);

describe('event hub: a subscriber of a task answered in the same task', () => {
  it("is given the answer past its stream's opening Task, which still reads INPUT_REQUIRED", async () => {
    const { gateway, answer } = await askedThenAnswering();
    const subscriber = collect(gateway.events.subscribe('T'));
    answer.push(
      { task: finishedTask('T', 'C') },
      statusFrame('T', 'C', 'TASK_STATE_WORKING', 'On it'),
      statusFrame('T', 'C', 'TASK_STATE_COMPLETED'),
    );
    answer.end();
    const relayed = await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C', taskId: 'T', text: 'eu-west' }) }, ALICE));
    expect(states(relayed)).toEqual(['task:TASK_STATE_INPUT_REQUIRED', 'status:TASK_STATE_WORKING', 'status:TASK_STATE_COMPLETED']);
    expect(states(await subscriber)).toEqual(states(relayed));
    expect(gateway.events.subscriberCount('T')).toBe(0);
  });

  it('is closed when the answer asks again, with the stream still open', async () => {
    const { gateway, answer } = await askedThenAnswering();
    const subscriber = collect(gateway.events.subscribe('T'));
    answer.push(
      { task: finishedTask('T', 'C') },
      statusFrame('T', 'C', 'TASK_STATE_WORKING'),
      statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED', 'Which zone?'),
    );
    const stream = gateway
      .sendStreamingMessage({ message: userMessage({ contextId: 'C', taskId: 'T', text: 'eu-west' }) }, ALICE)
      [Symbol.asyncIterator]();
    for (let read = 0; read < 3; read++) await stream.next();
    expect(states(await subscriber)).toEqual(['task:TASK_STATE_INPUT_REQUIRED', 'status:TASK_STATE_WORKING', 'status:TASK_STATE_INPUT_REQUIRED']);
    answer.end();
    await stream.return?.();
  });
});
