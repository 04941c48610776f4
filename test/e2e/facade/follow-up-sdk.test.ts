/**
 * A Bailian user answers an a2a-js 1.x agent's question, naming only the conversation (as Bailian does).
 * The SDK makes every stream open with a Task or a Message, also when the agent goes on with a waiting
 * task, so the answer's stream opens with the task as the agent took the message up: still waiting for
 * input. The user must read the agent's answer, and the conversation must go on after it.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { BOOK_QUESTION, bookedReply, DIRECT_TEXT, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { collect, sdkParams, sentText, startFacadeGateway, streamedText } from '../../support/facade.js';

describe('answering an a2a-js 1.x agent that asked a question (bailian profile)', () => {
  let agent: RunningScriptedAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  const stream = async (text: string, contextId: string) => {
    const events = await collect(client.sendMessageStream(sdkParams(text, { contextId })));
    return { text: streamedText(events), state: events.at(-1)?.status?.state, taskId: events[0]?.id };
  };
  const send = async (text: string, contextId: string) => {
    const sent: any = await client.sendMessage(sdkParams(text, { contextId }));
    return { text: sentText(sent.result), state: sent.result?.status?.state, taskId: sent.result?.id };
  };

  for (const [mode, turn] of Object.entries({ stream, send })) {
    it(`${mode}: the answer's reply is read whole, and the conversation goes on`, async () => {
      const contextId = `booking-${mode}`;
      const asked = await turn('book a flight to Paris', contextId);
      expect(asked).toMatchObject({ text: BOOK_QUESTION, state: 'completed' });

      const answered = await turn('tomorrow', contextId);
      expect(answered.text).toBe(bookedReply('tomorrow').join(''));
      expect(answered.state).toBe('completed');
      expect(answered.text).not.toContain(BOOK_QUESTION);

      // The task is finished at the agent and in the gateway: the next message starts a new one.
      const next = await turn('direct', contextId);
      expect(next).toMatchObject({ text: DIRECT_TEXT, state: 'completed' });
    });
  }
});
