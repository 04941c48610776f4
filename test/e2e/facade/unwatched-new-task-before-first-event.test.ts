/**
 * A message/send that opens a new task, whose `upstream.request-timeout-ms` passes before the agent's first event
 * (a message/stream's `upstream.first-event-timeout-ms` the same):
 * the agent has the message and goes on with it, but no event named its task yet, so nothing could note it. The
 * facade answers its user at the bound, in their language, that the agent has not started answering yet and is
 * probably still at it, and follows the upstream call unwatched until its first event names the task; the turn is
 * then noted as one its user stopped watching (unwatched-turns.ts), and the conversation's next message reads the
 * agent's answer instead of being sent. The same message sent again meanwhile joins the turn: it waits for that
 * note and reads the answer, never reaching the agent a second time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { fakeMessagesIn, fakeTaskState, readsOrRefusal, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import { AFTER_CUT, agentStateOf, DONE, quietAgentBehindFacade } from './rollout-agent.js';

/** The agent's first event comes 1.5 s after the call, well past the 300 ms bound. */
const LATE = '[fault:quiet after=0 ms=1500]';
const BOUND_MS = 300;

type Way = 'send' | 'stream';

const NOT_STARTED = {
  en: 'The agent has not started answering yet',
  zh: '智能体在本次回复的等待时间内还没有开始回复',
};
const WHOLE = {
  en: 'Here is the reply to your previous message: the agent took longer than that reply could wait',
  zh: '以下是你上一条消息的完整回复：智能体处理时间较长',
};
const WHOLE_OF_SAME = {
  en: 'The message you just sent is the same as your previous one',
  zh: '你刚发送的消息与上一条消息相同',
};

// Each test its own conversation: they wait out the agent's silence side by side.
describe.concurrent('a turn that opens a new task, whose bound passes before the agent says anything', () => {
  let fake: FakeIacCode;
  /** Bounds message/send at BOUND_MS, message/stream's first event at BOUND_MS. */
  const gateways: Record<Way, RunningGateway> = {} as Record<Way, RunningGateway>;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateways.send = await startFacadeGateway({ upstream: { url: fake.url, 'request-timeout-ms': BOUND_MS } });
    gateways.stream = await startFacadeGateway({ upstream: { url: fake.url, 'first-event-timeout-ms': BOUND_MS } });
  });
  afterAll(async () => {
    await gateways.send?.close();
    await gateways.stream?.close();
    await fake?.close();
  });

  const sent = (contextId: string): number => fakeMessagesIn(fake, contextId);
  const agentState = (contextId: string): string | undefined => fakeTaskState(fake, contextId);
  const reads = (way: Way, text: string, contextId: string): Promise<string> =>
    readsOrRefusal(gateways[way].url, way, userMessage({ text, contextId }));

  const CASES = [
    { way: 'send', language: 'zh', text: `${LATE} 创建一个专有网络`, next: '继续' },
    { way: 'send', language: 'en', text: `${LATE} create a vpc`, next: 'continue' },
    { way: 'stream', language: 'zh', text: `${LATE} 创建一个专有网络`, next: '继续' },
    { way: 'stream', language: 'en', text: `${LATE} create a vpc`, next: 'continue' },
  ] as const;

  for (const { way, language, text, next } of CASES) {
    it(`${way}, ${language}: told in its language that the agent has not started yet; the next message reads its answer`, async ({ expect }) => {
      const contextId = `ctx-new-task-late-${way}-${language}`;
      const told = await reads(way, text, contextId);
      expect(told).toContain(NOT_STARTED[language]);
      expect(told).not.toContain(GATEWAY_FAILURES.upstreamTimedOut);
      await waitUntil(async () => agentState(contextId) === 'TASK_STATE_INPUT_REQUIRED', 10_000);
      const reply = await reads(way, next, contextId);
      expect(reply).toContain(WHOLE[language]);
      expect(reply).toContain('Done.');
      // The next message was not sent to the agent: it read the rest of the turn the agent already ran.
      expect(sent(contextId)).toBe(1);
    });
  }

  for (const way of ['send', 'stream'] as const) {
    it(`${way}: the same message sent again while the turn is followed joins it: the answer, the agent asked once`, async ({ expect }) => {
      const contextId = `ctx-new-task-late-again-${way}`;
      const text = `${LATE} 创建一个交换机`;
      expect(await reads(way, text, contextId)).toContain(NOT_STARTED.zh);
      const again = await reads(way, text, contextId);
      expect(again).toContain(WHOLE_OF_SAME.zh);
      expect(again).toContain('Done.');
      expect(sent(contextId)).toBe(1);
    });
  }
});

describe('a REAL a2a-js 1.x agent that opens a new task only after message/send has answered at its bound', () => {
  const quiet = quietAgentBehindFacade({ 'request-timeout-ms': BOUND_MS });
  const { gates, executor } = quiet;

  const send = async (text: string, contextId: string): Promise<string> => {
    const { body } = await rpc(quiet.gateway.url, 'message/send', { message: userMessage({ text, contextId }) });
    return body.error ? body.error.message : sentText(body.result);
  };

  it('its user reads that it has not started yet, and the next message reads its answer, not sent', async () => {
    const contextId = 'ctx-new-task-late-sdk';
    // The agent holds its first event (and so its headers) until the test lets it go, after the answer.
    gates.reset(1);
    const told = await send('规划一个专有网络', contextId);
    expect(told).toContain(NOT_STARTED.zh);
    await waitUntil(async () => gates.reached === 1);
    gates.open();
    await waitUntil(async () => (await agentStateOf(quiet.agent.url, gates.taskId)) === 'TASK_STATE_COMPLETED', 10_000);
    const executions = executor.executions;
    const reply = await send('继续', contextId);
    expect(reply).toContain(WHOLE.zh);
    expect(reply).toContain(AFTER_CUT);
    expect(reply).toContain(DONE);
    expect(executor.executions).toBe(executions);
  });
});

describe('a gateway shut down while it follows a turn past its bound', () => {
  it('ends the followed call after its drain time, as a call whose caller left: its close does not wait for the agent', async () => {
    const fake = await startFakeIacCode();
    const gateway = await startFacadeGateway({ 'drain-timeout-ms': 200, upstream: { url: fake.url, 'request-timeout-ms': BOUND_MS } });
    try {
      const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '[fault:hang-before-headers] 创建一个专有网络' }) });
      expect(body.error?.message).toContain(NOT_STARTED.zh);
      const closed = gateway.close().then(() => 'closed');
      // Followed for as long again as its bound (300 s here: the first event's default bound): a close that waited for it hangs.
      const waited = new Promise((resolve) => setTimeout(resolve, 15_000, 'still open').unref());
      expect(await Promise.race([closed, waited])).toBe('closed');
    } finally {
      await fake.close();
    }
  });
});
