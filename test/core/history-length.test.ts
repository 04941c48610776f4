import { describe, expect, it } from 'vitest';
import { boundingHistory } from '../../src/core/history-length.js';
import type { GetTaskRequest, SendMessageRequest, StreamResponse, Task } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { ctxOf, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';

const history = [userMessage({ text: 'first' }), userMessage({ text: 'second' })];
const task: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, history };

const sendRequest = (historyLength: number | undefined): SendMessageRequest => ({
  message: userMessage(),
  configuration: { acceptedOutputModes: [], ...(historyLength === undefined ? {} : { historyLength }) },
});

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
  const events: StreamResponse[] = await collect(boundingHistory(agent).sendStreamingMessage(sendRequest(historyLength), ctxOf('alice')));
  const opening = events.find((event) => 'task' in event);
  return { asked: asked[0]!, opening: opening && 'task' in opening ? opening.task : undefined, events };
}

/** The decorator over an agent that answers SendMessage and GetTask with the whole task: what it answers and what the agent was asked. */
function answering() {
  const sent: SendMessageRequest[] = [];
  const read: GetTaskRequest[] = [];
  const agent = stubUpstream({
    async sendMessage(request) {
      sent.push(request);
      return { task };
    },
    async getTask(request) {
      read.push(request);
      return task;
    },
  });
  return { port: boundingHistory(agent), sent, read };
}

describe('boundingHistory', () => {
  it('cuts the Task events a stream relays to historyLength, asking the agent for the whole history', async () => {
    const none = await streamed(0);
    expect(none.opening?.history).toBeUndefined();
    expect(none.asked.configuration).toEqual({ acceptedOutputModes: [] });
    expect(none.events).toHaveLength(2);
    expect((await streamed(1)).opening?.history).toEqual([history[1]]);
  });

  it('leaves a stream without historyLength as it is', async () => {
    expect((await streamed(undefined)).opening?.history).toEqual(history);
  });

  it('cuts a blocking answer to historyLength, asking the agent for the whole history', async () => {
    const { port, sent } = answering();
    const answer = await port.sendMessage(sendRequest(1), ctxOf('alice'));
    expect('task' in answer && answer.task.history).toEqual([history[1]]);
    const none = await port.sendMessage(sendRequest(0), ctxOf('alice'));
    expect('task' in none && none.task.history).toBeUndefined();
    expect(sent.map((request) => request.configuration)).toEqual([{ acceptedOutputModes: [] }, { acceptedOutputModes: [] }]);
  });

  it('reads a task whole for a GetTask bound above 0 and cuts it; a bound of 0 is passed on', async () => {
    const { port, read } = answering();
    expect((await port.getTask({ id: 't-1', historyLength: 1 }, ctxOf('alice'))).history).toEqual([history[1]]);
    expect((await port.getTask({ id: 't-1' }, ctxOf('alice'))).history).toEqual(history);
    await port.getTask({ id: 't-1', historyLength: 0 }, ctxOf('alice'));
    expect(read).toEqual([{ id: 't-1' }, { id: 't-1' }, { id: 't-1', historyLength: 0 }]);
  });

  it('answers a GetTask bound of 0 without history from an agent that reads 0 as all of it (a2a-js 0.3: slice(-0))', async () => {
    const { port } = answering();
    const answer = await port.getTask({ id: 't-1', historyLength: 0 }, ctxOf('alice'));
    expect(answer.history).toBeUndefined();
    expect(answer.id).toBe('t-1');
  });
});
