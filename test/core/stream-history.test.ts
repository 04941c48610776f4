import { describe, expect, it } from 'vitest';
import { boundingStreamHistory } from '../../src/core/stream-history.js';
import type { SendMessageRequest, StreamResponse } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { ctxOf, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';

const history = [userMessage({ text: 'first' }), userMessage({ text: 'second' })];

/** The decorator over an agent that streams a Task with two history messages, then a status: what it relays and what the agent was asked. */
async function streamed(historyLength: number | undefined) {
  const asked: SendMessageRequest[] = [];
  const agent = stubUpstream({
    async *sendStreamingMessage(request) {
      asked.push(request);
      yield taskFrame('t-1', 'c-1', history);
      yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
    },
  });
  const request: SendMessageRequest = {
    message: userMessage(),
    configuration: { acceptedOutputModes: [], ...(historyLength === undefined ? {} : { historyLength }) },
  };
  const events: StreamResponse[] = await collect(boundingStreamHistory(agent).sendStreamingMessage(request, ctxOf('alice')));
  const task = events.find((event) => 'task' in event);
  return { asked: asked[0]!, opening: task && 'task' in task ? task.task : undefined, events };
}

describe('boundingStreamHistory', () => {
  it('cuts the Task events it relays to historyLength, asking the agent for the whole history', async () => {
    const none = await streamed(0);
    expect(none.opening?.history).toBeUndefined();
    expect(none.asked.configuration).toEqual({ acceptedOutputModes: [] });
    expect(none.events).toHaveLength(2);
    expect((await streamed(1)).opening?.history).toEqual([history[1]]);
  });

  it('leaves a stream without historyLength as it is', async () => {
    expect((await streamed(undefined)).opening?.history).toEqual(history);
  });
});
