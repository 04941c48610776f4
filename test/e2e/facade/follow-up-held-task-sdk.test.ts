/**
 * A Bailian user answers a REAL a2a-js 1.x agent's question, and the agent's stream then opens with the task as it
 * stands (still input-required: the SDK makes every stream open with a Task) and says nothing more, nor ends: its
 * executor returned after that Task (the SDK keeps an input-required task's event bus, and the stream, open), or it
 * never returns. The facade holds such a Task until the agent's next event tells it went on: the user must still be
 * answered within the turn's bounds (message/stream: `upstream.first-event-timeout-ms`, since the held Task is no
 * word of the agent's; message/send: `upstream.request-timeout-ms`), not kept waiting until the upstream's idle bound
 * (none here) or the gateway stops. That task asks by the message the user read before they answered: at the bound they
 * read only that the agent has not answered yet, not the question again (it read as the agent refusing the answer), nor
 * that it goes on working (it never moved); the next message shows the question once, as the agent still asks it. The
 * official 0.2.5 client, X-API-KEY.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/index.js';
import { collect, sdkParams, sentText, streamedText } from '../../support/facade.js';
import { startKeyedFacade, stopKeyedFacade } from '../../support/keyed-fetch.js';
import { promptOf, startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

const QUESTION = 'Which region should I deploy to, cn-hangzhou or cn-beijing?';
const words = facadeWords('en');
const timesAsked = (text: string | undefined): number => (text ?? '').split(QUESTION).length - 1;
const BOUND_MS = 1500;

/** Asks at once; takes an answer up with the task as it stands and then returns (`returns`) or never does (`never`). */
class HeldAnswerAgent implements AgentExecutor {
  executions = 0;
  private readonly stuck: Array<() => void> = [];
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.executions++;
    const { opening, status } = turnEvents(request);
    if (!request.task) {
      bus.publish(opening());
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
      return;
    }
    bus.publish(AgentEvent.task(request.task));
    if (promptOf(request.userMessage) === 'never') await new Promise<void>((resolve) => this.stuck.push(resolve));
  };
  release(): void {
    this.stuck.splice(0).forEach((resume) => resume());
  }
  cancelTask = async (): Promise<void> => undefined;
}

const executor = new HeldAnswerAgent();
let agent: RunningTestAgent;
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startSdkTestAgent(
    { name: 'asker', description: 'asks a question', skill: { id: 'ask', name: 'Ask', description: 'asks' } },
    executor,
  );
  // No idle bound: only the turn's own bounds can answer the user.
  const upstream = { url: agent.url, 'first-event-timeout-ms': BOUND_MS, 'request-timeout-ms': BOUND_MS, 'stream-idle-timeout-ms': 0 };
  ({ gateway, client } = await startKeyedFacade(upstream));
});
afterAll(async () => {
  executor.release();
  await stopKeyedFacade(gateway);
  await agent?.close();
});

/**
 * The turn's end is recorded: the conversation's next message reads it (the agent's question, the task waiting for
 * the user's answer), is not passed on as another answer to a question (the task never moved since), and is not
 * refused as a turn in progress or failed as a turn that broke off.
 */
async function expectQuestionShownNext(contextId: string): Promise<void> {
  const executions = executor.executions;
  const next: any = await client.sendMessage(sdkParams('continue', { contextId }));
  expect(timesAsked(sentText(next.result))).toBe(1);
  expect(next.result.status.state).toBe('input-required');
  expect(executor.executions).toBe(executions);
}

describe('an answer the agent takes up with its waiting task, then says nothing more nor ends', () => {
  for (const answer of ['returns', 'never']) {
    it(`message/stream (${answer}): answered at the first event's bound, told the agent has not answered yet`, async () => {
      const contextId = `held-stream-${answer}-${Date.now()}`;
      expect(streamedText(await collect(client.sendMessageStream(sdkParams('deploy', { contextId }))))).toBe(QUESTION);
      const began = Date.now();
      const events = await collect(client.sendMessageStream(sdkParams(answer, { contextId })));
      expect(Date.now() - began).toBeLessThan(BOUND_MS + 2500);
      expect(events[0]).toMatchObject({ kind: 'task', contextId });
      expect(streamedText(events)).toBe(words.notAnsweredYet);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true });
      await expectQuestionShownNext(contextId);
    }, 10_000);

    it(`message/send (${answer}): answered at the request's bound, the same`, async () => {
      const contextId = `held-send-${answer}-${Date.now()}`;
      const asked: any = await client.sendMessage(sdkParams('deploy', { contextId }));
      expect(sentText(asked.result)).toBe(QUESTION);
      const began = Date.now();
      const sent: any = await client.sendMessage(sdkParams(answer, { contextId }));
      expect(Date.now() - began).toBeLessThan(BOUND_MS + 2500);
      expect(sentText(sent.result)).toBe(words.notAnsweredYet);
      await expectQuestionShownNext(contextId);
    }, 10_000);
  }
});
