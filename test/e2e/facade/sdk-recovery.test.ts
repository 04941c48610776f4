/**
 * A REAL a2a-js 1.x agent behind the facade whose upstream stream is cut mid-turn (cutting-proxy.ts between
 * the gateway and the agent): the facade follows the task again (SubscribeToTask, else GetTask), and a
 * Bailian user must read over message/send and message/stream what the same turn shows unbroken: every word
 * once, in order, the question shown, the turn's state right. The agent stops at gates the test opens, so
 * every cut falls at a known point of the turn and the agent goes on only when the test says.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startCuttingProxy, type CuttingProxy } from '../../support/cutting-proxy.js';
import { facadeTurnReads, rpc, startFacadeGateway, type TurnRead } from '../../support/facade.js';
import { Gates, HeldLoadStore, promptOf, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';

const TOKENS = ['The VPC ', 'quota is ', '10 per ', 'region.'];
const REPORT = ['Quota report: 3 of 10 VPCs used. ', 'Region cn-hangzhou has room.'];
const DONE = 'Done: the report is attached.';
const QUESTION = 'Which region should the next VPC go to?';

/**
 * tokens: task, 2 tokens, GATE, 2 tokens, GATE, a report artifact in two chunks, GATE, completed with DONE (9 events)
 * ask:    the same, ending with input-required QUESTION
 */
class GatedAgent implements AgentExecutor {
  constructor(private readonly gates: Gates) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.gates.taskId = request.taskId;
    const prompt = promptOf(request.userMessage);
    const { opening, status, artifact } = turnEvents(request);
    // one-id: every token under one message id, as iac-code and many agents send a message's chunks.
    const tokensId = prompt === 'one-id' ? randomUUID() : undefined;
    const report = (chunk: number) => artifact('report', [textPart(REPORT[chunk]!)], chunk > 0, chunk === REPORT.length - 1);
    bus.publish(opening());
    for (const token of TOKENS.slice(0, 2)) bus.publish(status(TaskState.TASK_STATE_WORKING, token, tokensId));
    await this.gates.pass();
    for (const token of TOKENS.slice(2)) bus.publish(status(TaskState.TASK_STATE_WORKING, token, tokensId));
    await this.gates.pass();
    bus.publish(report(0));
    bus.publish(report(1));
    await this.gates.pass();
    if (prompt === 'ask') bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
    else bus.publish(status(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

/** The agent's card, pointing its callers at the proxy in front of it. */
const CARD = {
  name: 'gated',
  description: 'An a2a-js 1.x agent that streams tokens, a report and a question, stopping at gates.',
  skill: { id: 'gated', name: 'Gated', description: 'tokens, ask' },
};

/** What the caller read of one turn. */
describe('an a2a-js 1.x agent whose stream is cut mid-turn, behind the facade', () => {
  const gates = new Gates();
  const store = new HeldLoadStore();
  let proxy: CuttingProxy;
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    proxy = await startCuttingProxy();
    agent = await startSdkTestAgent(CARD, new GatedAgent(gates), { taskStore: store, behind: proxy });
    gateway = await startFacadeGateway({ upstream: { url: proxy.url } });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
    await proxy?.close();
    await agent?.close();
  });

  const ways = facadeTurnReads(() => gateway.url);
  const { stream, send } = ways;

  /** The turn's task in the agent's store, read past the proxy. */
  const stored = async (): Promise<any> =>
    (await rpc(`${agent.url}/a2a/jsonrpc`, 'GetTask', { id: gates.taskId }, { headers: { 'A2A-Version': '1.0' } })).body.result;

  const unbroken: Record<string, TurnRead> = {};
  for (const prompt of ['tokens', 'ask', 'one-id']) {
    it(`${prompt}: the unbroken turn reads the same both ways`, async () => {
      gates.reset(0);
      const streamed = await stream(prompt);
      expect(await send(prompt)).toEqual(streamed);
      expect(streamed.text).toContain(TOKENS.join(''));
      unbroken[prompt] = streamed;
    });
  }

  /**
   * One broken turn: the stream is cut after `events` events, while the agent waits at gate `at`. With
   * `gap`, the agent goes on before the facade subscribes again, to its next gate (from gate 1) or to the
   * turn's end (the snapshot holds what the stream missed), and the state stored is `gap.stored`; without,
   * the agent goes on once the subscription is answered (the rest comes live).
   */
  async function broken(
    way: keyof typeof ways,
    prompt: string,
    cut: { events: number; at: 1 | 2 | 3; gap?: { to: 'next-gate' | 'end'; stored: string } },
  ): Promise<TurnRead> {
    gates.reset(cut.at);
    const subscribedBefore = proxy.of('SubscribeToTask').length;
    proxy.cutAfterEvents('SendStreamingMessage', cut.events);
    if (cut.gap) proxy.hold('SubscribeToTask');
    const reading = ways[way](prompt);
    await waitUntil(async () => gates.reached === cut.at && proxy.of('SendStreamingMessage').at(-1)?.cut === true);
    if (cut.gap) {
      gates.open(cut.gap.to === 'end' ? 0 : cut.at + 1);
      const passed = cut.gap.to === 'end' ? 3 : cut.at;
      // Stored, not only sent: the SDK writes its store in the loop of the stream that broke, after the bus.
      const storedAll = (task: any): boolean =>
        task?.status?.state === cut.gap?.stored && (cut.gap?.to === 'end' || task?.status?.message?.parts?.[0]?.text === TOKENS[3]);
      await waitUntil(async () => gates.passed === passed && storedAll(await stored()));
      proxy.release();
      if (cut.gap.to === 'next-gate') {
        await waitUntil(async () => (proxy.of('SubscribeToTask')[subscribedBefore]?.events ?? 0) >= 1);
        gates.open();
      }
    } else {
      await waitUntil(async () => (proxy.of('SubscribeToTask')[subscribedBefore]?.events ?? 0) >= 1);
      gates.open();
    }
    return reading;
  }

  for (const way of ['stream', 'send'] as const) {
    for (const prompt of ['tokens', 'ask']) {
      const end = prompt === 'ask' ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_COMPLETED';
      it(`${way} ${prompt}: cut during the tokens, the rest followed live`, async () => {
        expect(await broken(way, prompt, { events: 3, at: 1 })).toEqual(unbroken[prompt]);
      });
      it(`${way} ${prompt}: cut after the first token, the agent streams on to its next gate before the subscription`, async () => {
        expect(await broken(way, prompt, { events: 2, at: 1, gap: { to: 'next-gate', stored: 'TASK_STATE_WORKING' } })).toEqual(unbroken[prompt]);
      });
      it(`${way} ${prompt}: cut after the first token, the agent ends the turn before the subscription`, async () => {
        expect(await broken(way, prompt, { events: 2, at: 1, gap: { to: 'end', stored: end } })).toEqual(unbroken[prompt]);
      });
      it(`${way} ${prompt}: cut after the artifact-update, the rest followed live`, async () => {
        expect(await broken(way, prompt, { events: 7, at: 3 })).toEqual(unbroken[prompt]);
      });
      it(`${way} ${prompt}: cut just before the final status, the agent ends the turn before the subscription`, async () => {
        expect(await broken(way, prompt, { events: 7, at: 3, gap: { to: 'end', stored: end } })).toEqual(unbroken[prompt]);
      });
    }
  }

  for (const way of ['stream', 'send'] as const) {
    it(`${way}: the agent streams on while the subscription loads its snapshot: what the snapshot holds is not shown again`, async () => {
      gates.reset(1);
      const subscribedBefore = proxy.of('SubscribeToTask').length;
      proxy.cutAfterEvents('SendStreamingMessage', 3);
      proxy.hold('SubscribeToTask');
      const reading = ways[way]('tokens');
      await waitUntil(async () => gates.reached === 1 && proxy.of('SendStreamingMessage').at(-1)?.cut === true);
      // The agent waits: once the subscription comes, the next load is its own, which listens to the task's events already.
      await waitUntil(async () => proxy.of('SubscribeToTask').length > subscribedBefore);
      store.holdNextLoad();
      proxy.release();
      await waitUntil(async () => store.holding);
      gates.open(2);
      await waitUntil(async () => gates.reached === 2 && (await stored())?.status?.message?.parts?.[0]?.text === TOKENS[3]);
      store.releaseLoad();
      await waitUntil(async () => (proxy.of('SubscribeToTask')[subscribedBefore]?.events ?? 0) >= 1);
      gates.open();
      expect(await reading).toEqual(unbroken.tokens);
    });
  }

  for (const way of ['stream', 'send'] as const) {
    it(`${way} one-id: cut during the tokens, the rest followed live: as unbroken`, async () => {
      expect(await broken(way, 'one-id', { events: 3, at: 1 })).toEqual(unbroken['one-id']);
    });
    it(`${way} one-id: cut after the first token, the turn read from the task: the SDK kept the first token only`, async () => {
      const read = await broken(way, 'one-id', { events: 2, at: 1, gap: { to: 'end', stored: 'TASK_STATE_COMPLETED' } });
      expect(read).toEqual({ text: `${TOKENS[0]}\n${REPORT.join('')}\n${DONE}`, state: 'completed' });
    });
  }
});
