import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../../src/core/agent-port.js';
import { A2AError, type Part, type SendMessageRequest, type StreamResponse } from '../../../src/model/index.js';
import { answeringPermissionsByStream } from '../../../src/upstream/iac-code/permission-answer-stream.js';
import { ctxOf, finishedTask, statusFrame, stubUpstream, userMessage } from '../../support/gateway-stubs.js';

const ANSWER: Part = {
  data: { schemaVersion: 1, kind: 'permission', requestTaskId: 't-1', inputId: 'permission-1', toolUseId: 'tu-1', decision: 'allow_once' },
  mediaType: 'application/json',
};
const answering = (): SendMessageRequest => ({ message: { ...userMessage({ taskId: 't-1', contextId: 'c-1' }), parts: [ANSWER] } });

describe('answeringPermissionsByStream: a blocking permission answer to iac-code goes as a stream', () => {
  it('answers with the task as iac-code holds it once the turn pauses again, and reads no further', async () => {
    let closed = false;
    const upstream = stubUpstream({
      async *sendStreamingMessage() {
        try {
          yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
          yield statusFrame('t-1', 'c-1', 'TASK_STATE_INPUT_REQUIRED');
          yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
        } finally {
          closed = true;
        }
      },
      getTask: async ({ id }) => finishedTask(id, 'c-1'),
    });
    const port = answeringPermissionsByStream(upstream, { isIacCode: () => true, requestTimeoutMs: 0 });
    const answer = await port.sendMessage(answering(), ctxOf('p'));
    expect(['task' in answer && answer.task.id, upstream.calls, closed]).toEqual(['t-1', ['sendStreamingMessage', 'getTask'], true]);
  });

  it('gives up on a stream that never pauses after request-timeout-ms, as on the blocking call, and ends that stream', async () => {
    let aborted = false;
    const upstream = stubUpstream({
      async *sendStreamingMessage(_request: SendMessageRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted = true;
        throw new Error('aborted');
      },
    });
    const port = answeringPermissionsByStream(upstream, { isIacCode: () => true, requestTimeoutMs: 50 });
    const error = await port.sendMessage(answering(), ctxOf('p')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(A2AError);
    expect([(error as A2AError).message, aborted, upstream.calls]).toEqual([A2AError.upstreamTimedOut().message, true, ['sendStreamingMessage']]);
  });

  it('sends any other message, and anything to an agent that is not iac-code, as it came', async () => {
    const upstream = stubUpstream({ sendMessage: async (request) => ({ task: finishedTask(request.message.taskId ?? 'new', 'c-1') }) });
    await answeringPermissionsByStream(upstream, { isIacCode: () => true, requestTimeoutMs: 0 }).sendMessage(
      { message: userMessage({ taskId: 't-1', text: 'Allow once' }) },
      ctxOf('p'),
    );
    await answeringPermissionsByStream(upstream, { isIacCode: () => false, requestTimeoutMs: 0 }).sendMessage(answering(), ctxOf('p'));
    expect(upstream.calls).toEqual(['sendMessage', 'sendMessage']);
  });
});
