/**
 * An older agent's refusal of a message to its finished task, as 1.0 words it (src/upstream/finished-task-refusal.ts):
 * a2a-python 0.3's wording here (a2a-js's, end to end: test/e2e/upstreams/explore-v1-over-v025.test.ts). Only a
 * refusal that names the message's task and says it is finished is told so.
 */
import { describe, expect, it } from 'vitest';
import type { Upstream } from '../../src/core/agent-port.js';
import { A2AError, ErrorCode } from '../../src/model/index.js';
import { withFinishedTaskRefusals } from '../../src/upstream/finished-task-refusal.js';
import { collect } from '../support/collect.js';
import { sendMessageParams } from '../support/v1-message.js';
import { ctx } from './support.js';

/** An agent's client that refuses every message with `error`. */
const refusing = (error: A2AError): Upstream =>
  ({
    sendMessage: () => Promise.reject(error),
    // eslint-disable-next-line require-yield
    async *sendStreamingMessage() {
      throw error;
    },
  }) as unknown as Upstream;

const codeOf = async (call: Promise<unknown>): Promise<number | undefined> =>
  call.then(
    () => undefined,
    (error: unknown) => (error instanceof A2AError ? error.code : undefined),
  );

describe('a refusal of a message to a finished task', () => {
  const request = sendMessageParams('more', { taskId: 't-1' });

  it("a2a-python 0.3's InvalidParams naming the task is UnsupportedOperation, in its words, sent or streamed", async () => {
    const upstream = withFinishedTaskRefusals(refusing(new A2AError(ErrorCode.InvalidParams, 'Task t-1 is in terminal state: completed')));
    await expect(upstream.sendMessage(request, ctx())).rejects.toMatchObject({
      code: ErrorCode.UnsupportedOperation,
      message: 'Task t-1 is in terminal state: completed',
    });
    expect(await codeOf(collect(upstream.sendStreamingMessage(request, ctx())))).toBe(ErrorCode.UnsupportedOperation);
  });

  it('any other invalid params, or one about another task, stays as the agent said it', async () => {
    for (const message of ['message.parts: must not be empty', 'Task t-2 is in terminal state: completed']) {
      const upstream = withFinishedTaskRefusals(refusing(new A2AError(ErrorCode.InvalidParams, message)));
      expect(await codeOf(upstream.sendMessage(request, ctx()))).toBe(ErrorCode.InvalidParams);
    }
  });
});
