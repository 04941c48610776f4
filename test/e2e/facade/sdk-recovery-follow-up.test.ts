/**
 * The answer to an a2a-js 1.x agent's question, whose upstream stream is cut (cutting-proxy.ts) right after
 * the Task the SDK makes the agent open it with: the task as the agent took the answer up, still waiting for
 * input. The agent goes on regardless; a Bailian user must read its reply as unbroken, not the question again.
 */
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startCuttingProxy, type CuttingProxy } from '../../support/cutting-proxy.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';

const QUESTION = 'Which date should I book the flight for?';
const REPLY = ['Booking ', 'the flight.', 'Booked: ticket 7731.'];

/** Asks QUESTION; an answer in the waiting task opens with that task, then REPLY, the last piece completing it, after `proceed`. */
class Booker implements AgentExecutor {
  /** Resolved by the test to let the answer's reply go on; undefined: at once. */
  proceed: Promise<void> | undefined;
  lastTaskId = '';

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.lastTaskId = request.taskId;
    const { opening, status } = turnEvents(request);
    if (!request.task) {
      bus.publish(opening());
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
      return;
    }
    // The SDK refuses a stream that does not open with the Task or a Message, also when it goes on with one.
    bus.publish(AgentEvent.task(request.task));
    await this.proceed;
    bus.publish(status(TaskState.TASK_STATE_WORKING, REPLY[0]));
    bus.publish(status(TaskState.TASK_STATE_WORKING, REPLY[1]));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, REPLY[2]));
  };

  cancelTask = async (): Promise<void> => undefined;
}

const CARD = {
  name: 'booker',
  description: 'An a2a-js 1.x agent that asks a question and answers in the waiting task.',
  skill: { id: 'book', name: 'Book', description: 'book' },
};

describe("the answer to an a2a-js 1.x agent's question, its stream cut after the waiting task", () => {
  const booker = new Booker();
  let proxy: CuttingProxy;
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    proxy = await startCuttingProxy();
    agent = await startSdkTestAgent(CARD, booker, { behind: proxy });
    gateway = await startFacadeGateway({ upstream: { url: proxy.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await proxy?.close();
    await agent?.close();
  });

  const turn = async (way: 'stream' | 'send', text: string, contextId: string): Promise<{ text: string; state: string }> => {
    if (way === 'send') {
      const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text, contextId }) });
      return { text: sentText(answer.body.result), state: answer.body.result?.status?.state };
    }
    const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text, contextId }) });
    const events = results(await opened.rest());
    return { text: streamedText(events), state: events.at(-1)?.status?.state };
  };

  /** The state of a conversation's task in the agent's store, read past the proxy. */
  const storedState = async (taskId: string): Promise<string | undefined> =>
    (await rpc(`${agent.url}/a2a/jsonrpc`, 'GetTask', { id: taskId }, { headers: { 'A2A-Version': '1.0' } })).body.result?.status?.state;

  for (const way of ['stream', 'send'] as const) {
    for (const follow of ['reading', 'before'] as const) {
      // The gateway does not subscribe to a waiting task (an a2a-js subscription would wait for ever): it reads it.
      const when = follow === 'reading' ? 'while the facade reads the task' : 'before the facade follows the task';
      it(`${way}: the reply is read whole, as unbroken, when the cut falls after the waiting task and the agent goes on ${when}`, async () => {
        booker.proceed = undefined;
        const unbrokenContext = `unbroken-${way}-${follow}`;
        expect((await turn(way, 'book a flight', unbrokenContext)).text).toBe(QUESTION);
        const unbroken = await turn(way, 'tomorrow', unbrokenContext);
        expect(unbroken).toEqual({ text: `${REPLY[0]}${REPLY[1]}\n${REPLY[2]}`, state: 'completed' });

        const contextId = `broken-${way}-${follow}`;
        expect((await turn(way, 'book a flight', contextId)).text).toBe(QUESTION);
        let proceed = (): void => undefined;
        booker.proceed = new Promise((resolve) => (proceed = resolve));
        proxy.cutAfterEvents('SendStreamingMessage', 1);
        const readBefore = proxy.of('GetTask').length;
        if (follow === 'before') proxy.hold('GetTask');
        const reading = turn(way, 'tomorrow', contextId);
        await waitUntil(async () => proxy.of('SendStreamingMessage').at(-1)?.cut === true);
        if (follow === 'reading') {
          // The subscription's check of the task, then a read that found it still waiting.
          await waitUntil(async () => proxy.of('GetTask').length >= readBefore + 3);
          proceed();
        } else {
          proceed();
          await waitUntil(async () => (await storedState(booker.lastTaskId)) === 'TASK_STATE_COMPLETED');
          proxy.release();
        }
        expect(await reading).toEqual(unbroken);
      });
    }
  }
});
