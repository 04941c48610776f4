/**
 * A Bailian user answers an a2a-js 1.x agent's question, naming only the conversation (as Bailian does).
 * The SDK makes every stream open with a Task or a Message, also when the agent goes on with a waiting
 * task, so the answer's stream opens with the task as the agent took the message up: still waiting for
 * input. The user must read the agent's answer, and the conversation must go on after it.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import type { Task } from 'a2a-sdk-1';
import { InMemoryTaskStore, type ServerCallContext, type TaskStore } from 'a2a-sdk-1/server';
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
      expect(asked).toMatchObject({ text: BOOK_QUESTION, state: 'input-required' });

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

/** The SDK's own store, which forgets on demand what it held: the agent restarted and lost its tasks. */
class ForgetfulTaskStore implements TaskStore {
  private readonly kept = new InMemoryTaskStore();
  private readonly forgotten = new Set<string>();
  readonly saved: string[] = [];
  async save(task: Task, context: ServerCallContext): Promise<void> {
    this.saved.push(task.id);
    this.forgotten.delete(task.id);
    await this.kept.save(task, context);
  }
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.forgotten.has(taskId) ? undefined : this.kept.load(taskId, context);
  }
  list: InMemoryTaskStore['list'] = (params, context) => this.kept.list(params, context);
  forgetAll(): void {
    for (const taskId of this.saved) this.forgotten.add(taskId);
  }
}

describe('answering a question of an agent that restarted and lost its tasks', () => {
  const store = new ForgetfulTaskStore();
  let agent: RunningScriptedAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startScriptedAgent({ taskStore: store });
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  it('the conversation goes on in a new task, in both modes, rather than failing every message', async () => {
    for (const mode of ['stream', 'send'] as const) {
      const contextId = `forgotten-${mode}`;
      const first = await client.sendMessage(sdkParams('book a flight to Paris', { contextId }));
      expect(sentText((first as any).result)).toBe(BOOK_QUESTION);
      store.forgetAll();
      const params = sdkParams('direct', { contextId });
      const read =
        mode === 'stream'
          ? streamedText(await collect(client.sendMessageStream(params)))
          : sentText(((await client.sendMessage(params)) as any).result);
      expect(read).toBe(DIRECT_TEXT);
    }
  });
});
