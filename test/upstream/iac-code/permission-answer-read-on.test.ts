/**
 * A permission answer whose caller does not wait (`returnImmediately`): answered at the turn's first event, the rest
 * of iac-code's answering stream read on through what the gateway adds to a turn's stream (CallContext.readOn), as
 * a streamed turn is, rather than for nobody.
 */
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../../src/core/agent-port.js';
import { endedWhenBroken } from '../../../src/core/read-on.js';
import { A2AError, eventTaskState, withFields, type Part, type SendMessageRequest, type StreamResponse } from '../../../src/model/index.js';
import { answeringPermissionsByStream } from '../../../src/upstream/iac-code/permission-answer-stream.js';
import { ctxOf, finishedTask, statusFrame, stubUpstream, userMessage } from '../../support/gateway-stubs.js';

const ANSWER: Part = {
  data: { schemaVersion: 1, kind: 'permission', requestTaskId: 't-1', inputId: 'permission-1', toolUseId: 'tu-1', decision: 'allow_once' },
  mediaType: 'application/json',
};
const notWaiting = (): SendMessageRequest => ({
  message: { ...userMessage({ taskId: 't-1', contextId: 'c-1' }), parts: [ANSWER] },
  configuration: { returnImmediately: true },
});

/** A call context whose readOn reads the rest through `wrap`, and tells what came through and how it ended. */
function readingOn(wrap: (rest: AsyncIterable<StreamResponse>) => AsyncIterable<StreamResponse> = (rest) => rest) {
  const states: string[] = [];
  let handed = false;
  let ended!: (how: unknown) => void;
  const end = new Promise<unknown>((resolve) => (ended = resolve));
  async function* read(rest: AsyncIterable<StreamResponse>): AsyncGenerator<StreamResponse> {
    try {
      for await (const event of wrap(rest)) {
        states.push(eventTaskState(event) ?? 'none');
        yield event;
      }
      ended('done');
    } catch (error) {
      ended(error);
      throw error;
    }
  }
  const ctx: CallContext = withFields(ctxOf('p'), { readOn: (rest: AsyncIterable<StreamResponse>) => ((handed = true), read(rest)) });
  return { ctx, states, end, handed: () => handed };
}

describe('answeringPermissionsByStream: a permission answer whose caller does not wait', () => {
  it('hands the rest of the turn to readOn before the answer, which reads it to the turn’s end', async () => {
    const upstream = stubUpstream({
      async *sendStreamingMessage() {
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING', 'Wrote main.tf.');
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_INPUT_REQUIRED');
      },
      getTask: async ({ id }) => finishedTask(id, 'c-1', 'TASK_STATE_WORKING'),
    });
    const reading = readingOn();
    const answer = await answeringPermissionsByStream(upstream, { isIacCode: () => true, requestTimeoutMs: 0 }).sendMessage(
      notWaiting(),
      reading.ctx,
    );
    expect(['task' in answer && answer.task.status.state, reading.handed()]).toEqual(['TASK_STATE_WORKING', true]);
    expect(await reading.end).toBe('done');
    expect(reading.states).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
  });

  it('tells a rest cut by request-timeout-ms as the gateway’s hang-up, which leaves the turn running, not broken off', async () => {
    const upstream = stubUpstream({
      async *sendStreamingMessage(_request: SendMessageRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING', 'Writing main.tf.');
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        throw new Error('aborted');
      },
      getTask: async ({ id }) => finishedTask(id, 'c-1', 'TASK_STATE_WORKING'),
    });
    // As the record reads it: a stream broken off before the turn's end is failed with the reason.
    const reading = readingOn(endedWhenBroken);
    await answeringPermissionsByStream(upstream, { isIacCode: () => true, requestTimeoutMs: 50 }).sendMessage(notWaiting(), reading.ctx);
    const how = await reading.end;
    expect([how instanceof A2AError && how.message, reading.states]).toEqual([A2AError.upstreamTimedOut().message, ['TASK_STATE_WORKING']]);
  });
});
