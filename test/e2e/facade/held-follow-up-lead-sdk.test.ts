/**
 * A Bailian user answers a REAL a2a-js 1.x agent's question; the agent takes the answer up with its waiting task and
 * says nothing more, so the facade's bound answers the user that the agent has not answered yet, not with the question
 * they just answered (follow-up-held-task-sdk.test.ts). The conversation's next message shows the question once, opened
 * with words that say the agent still asks it: not that the agent went on working (the task never moved), nor a rest
 * after the question read at the bound. The same in message/stream and message/send, in the conversation's language.
 * The official 0.2.5 client, X-API-KEY.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/index.js';
import { collect, sdkParams, sentText, streamedText } from '../../support/facade.js';
import { startKeyedFacade, stopKeyedFacade } from '../../support/keyed-fetch.js';
import { startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

const QUESTION = '要部署到华东1还是华北2？';
const BOUND_MS = 1500;
const words = facadeWords('zh');
const timesAsked = (text: string | undefined): number => (text ?? '').split(QUESTION).length - 1;

/** Asks at once; takes an answer up with the task as it stands and then returns. */
class HeldAnswerAgent implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { opening, status } = turnEvents(request);
    if (!request.task) {
      bus.publish(opening());
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
      return;
    }
    bus.publish(AgentEvent.task(request.task));
  };
  cancelTask = async (): Promise<void> => undefined;
}

let agent: RunningTestAgent;
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startSdkTestAgent(
    { name: 'asker', description: 'asks a question', skill: { id: 'ask', name: 'Ask', description: 'asks' } },
    new HeldAnswerAgent(),
  );
  const upstream = { url: agent.url, 'first-event-timeout-ms': BOUND_MS, 'request-timeout-ms': BOUND_MS, 'stream-idle-timeout-ms': 0 };
  ({ gateway, client } = await startKeyedFacade(upstream));
});
afterAll(async () => {
  await stopKeyedFacade(gateway);
  await agent?.close();
});

describe('the message after a follow-up whose bound passed while the agent still asked what it was answered', () => {
  for (const method of ['message/stream', 'message/send'] as const)
    it(`${method}: the bound says the agent has not answered; the next reply shows the question once, as still asked`, async () => {
      const contextId = `held-lead-${method.replace('/', '-')}-${Date.now()}`;
      const asked: any = await client.sendMessage(sdkParams('帮我部署这个模板', { contextId }));
      expect(asked.error).toBeUndefined();
      expect(sentText(asked.result)).toBe(QUESTION);
      const read = async (text: string): Promise<string | undefined> =>
        method === 'message/stream'
          ? streamedText(await collect(client.sendMessageStream(sdkParams(text, { contextId }))))
          : sentText(((await client.sendMessage(sdkParams(text, { contextId }))) as any).result);
      expect(await read('华东1')).toBe(words.notAnsweredYet);
      const next = (await read('继续')) ?? '';
      expect(next).toBe(`${words.stillAsks}\n\n${QUESTION}`);
      expect(timesAsked(next)).toBe(1);
    }, 15_000);
});
