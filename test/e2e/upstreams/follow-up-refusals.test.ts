/**
 * A follow-up the recorded task cannot take is refused by the gateway, in a2a-js 1.x's terms, whatever
 * the agent behind it would have answered (a 0.2.5 agent says -32600 "Invalid Request" to a finished task,
 * and takes a message whose context is not its task's). A task the agent does not know is the agent's
 * refusal, typed as a 1.x agent's: a2a-js 0.2.5 refuses a stream by opening it with the error as its
 * first event, which the gateway answers as a plain error, not as an error inside a stream.
 */
import { describe, expect, it } from 'vitest';
import { asTask, rejectionOf, sendRequest, wireCode, type TransportName } from '../../support/sdk-v1-client.js';
import { v025AgentBehindGateway } from './v025-agent-behind-gateway.js';

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a follow-up over %s that the task cannot take', (transport: TransportName) => {
  const running = v025AgentBehindGateway(transport);

  it('a finished task takes no more messages: UnsupportedOperation, sent or streamed, and the agent is not asked', async () => {
    const done = asTask(await running.client.sendMessage(sendRequest('hello')));
    const asked = running.agent.received.length;
    for (const call of [
      running.client.sendMessage(sendRequest('more', { taskId: done.id })),
      running.client.sendMessageStream(sendRequest('more', { taskId: done.id })),
    ]) {
      const refusal = await rejectionOf(call);
      expect(refusal).toMatchObject({ code: wireCode(transport, -32004), reason: 'UNSUPPORTED_OPERATION' });
      expect(refusal.message).toContain(`Task ${done.id} is in a terminal state`);
    }
    expect(running.agent.received.length).toBe(asked);
  });

  it("a message naming a task the agent does not know: TaskNotFound, sent or streamed, typed as a 1.x agent's", async () => {
    const asked = running.agent.received.length;
    for (const call of [
      running.client.sendMessage(sendRequest('more', { taskId: 'no-such-task' })),
      running.client.sendMessageStream(sendRequest('more', { taskId: 'no-such-task' })),
    ]) {
      const refusal = await rejectionOf(call);
      expect(refusal).toEqual({ code: wireCode(transport, -32001), reason: 'TASK_NOT_FOUND', message: 'Task not found: no-such-task' });
    }
    // The refusals are the agent's own.
    expect(running.agent.received.length).toBe(asked + 2);
  });

  it('a message naming a task and another context is refused: invalid params, the task left waiting', async () => {
    const other = asTask(await running.client.sendMessage(sendRequest('hello')));
    const waiting = asTask(await running.client.sendMessage(sendRequest('ask: which region?')));
    const refusal = await rejectionOf(running.client.sendMessage(sendRequest('north', { taskId: waiting.id, contextId: other.contextId })));
    expect(refusal).toMatchObject({ code: wireCode(transport, -32602), reason: 'INVALID_PARAMS' });
    expect(refusal.message).toContain(`not ${other.contextId}`);
    const answered = asTask(await running.client.sendMessage(sendRequest('north', { taskId: waiting.id, contextId: waiting.contextId })));
    expect(answered.id).toBe(waiting.id);
  });
});
