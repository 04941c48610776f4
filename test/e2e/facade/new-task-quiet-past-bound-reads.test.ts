/**
 * iac-code may plan for a long time before its first event. A Bailian user whose message opens a new task and passes
 * the gateway's bound before that event (message/send's `upstream.request-timeout-ms`, message/stream's
 * `upstream.first-event-timeout-ms`) reads, in their language, that the agent has not started answering yet and that
 * any message a moment later shows its reply: not "upstream timed out", which would have them send the request again
 * and run it twice. The call is followed until the agent's first event names the task (unwatched-turns.ts turnBound),
 * and the conversation's next message reads the agent's reply whole, the agent asked once. A message that comes while
 * the agent is still quiet past the wait for it is refused as a turn in progress, in the same language, and is not
 * sent; the one after, once the agent spoke, reads the reply. message/stream is not bounded by `request-timeout-ms`.
 * (unwatched-new-task-before-first-event.test.ts holds the Chinese and English turns, unwatched-silent-turns.test.ts
 * an agent that never says anything.)
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { FOLLOWED_WAIT_MS } from '../../../src/surfaces/v025/turn/continuation.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { fakeMessagesIn, readsOrRefusal, startFacadeGateway, userMessage } from '../../support/facade.js';

const BOUND_MS = 300;
/** The agent's first event comes 1.5 s after the call, well past the bound. */
const LATE = '[fault:quiet after=0 ms=1500]';
/** Its first event comes 3 s after a message sent right after the bound gave up waiting for it. */
const LATER = `[fault:quiet after=0 ms=${BOUND_MS + FOLLOWED_WAIT_MS + 3_000}]`;

type Way = 'send' | 'stream';

/** The fake iac-code's captured turn, as the user reads it. */
const AGENT_SAYS = ['Hello world.', 'Done.'];
const NOT_STARTED = {
  ja: 'この返信で待てる時間内に、エージェントはまだ回答を始めていません。',
  zh: '智能体在本次回复的等待时间内还没有开始回复',
};
/** The bare time-out, as a Japanese user would read it. */
const TIMED_OUT_JA = '上流のエージェントが時間内に応答しませんでした';
const WHOLE = {
  ja: '以下は、前のメッセージへの返信の全文です（処理に時間がかかったため',
  zh: '以下是你上一条消息的完整回复：智能体处理时间较长',
};
const TURN_IN_PROGRESS_ZH = '智能体仍在处理你的上一条消息';

// Each test its own conversation: they wait out the agent's silences side by side.
describe.concurrent('a Bailian user whose new task passes the bound before iac-code says anything', () => {
  let fake: FakeIacCode;
  /** send: message/send bounded at BOUND_MS; stream: message/stream's first event bounded at BOUND_MS. */
  const gateways = {} as Record<Way | 'streamRequestBound', RunningGateway>;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateways.send = await startFacadeGateway({ upstream: { url: fake.url, 'request-timeout-ms': BOUND_MS } });
    gateways.stream = await startFacadeGateway({ upstream: { url: fake.url, 'first-event-timeout-ms': BOUND_MS } });
    gateways.streamRequestBound = await startFacadeGateway({ upstream: { url: fake.url, 'request-timeout-ms': BOUND_MS } });
  });
  afterAll(async () => {
    await Promise.all(Object.values(gateways).map((gateway) => gateway.close()));
    await fake?.close();
  });

  /** The messages of the conversation the agent was sent. */
  const sentIn = (contextId: string): number => fakeMessagesIn(fake, contextId);
  const reads = (gateway: RunningGateway, way: Way, text: string, contextId: string): Promise<string> =>
    readsOrRefusal(gateway.url, way, userMessage({ text, contextId }));

  for (const way of ['send', 'stream'] as const) {
    it(`${way}, in Japanese: told the agent has not started yet, not that it timed out; "続けて" reads the reply whole`, async ({ expect }) => {
      const contextId = `ctx-quiet-new-task-ja-${way}`;
      const told = await reads(gateways[way], way, `${LATE} VPCを作成して`, contextId);
      expect(told).toContain(NOT_STARTED.ja);
      expect(told).not.toContain(TIMED_OUT_JA);
      expect(told).not.toContain(GATEWAY_FAILURES.upstreamTimedOut);
      // Sent at once, as a user told to write again in a moment may: it waits for the agent's first event.
      const reply = await reads(gateways[way], way, '続けて', contextId);
      expect(reply).toContain(WHOLE.ja);
      for (const said of AGENT_SAYS) expect(reply).toContain(said);
      expect(sentIn(contextId)).toBe(1);
    });
  }

  for (const way of ['send', 'stream'] as const) {
    it(
      `${way}: a message while the agent stays quiet past the wait is refused as a turn in progress, not sent; the next reads the reply`,
      { timeout: 40_000 },
      async ({ expect }) => {
        const contextId = `ctx-quiet-longer-${way}`;
        expect(await reads(gateways[way], way, `${LATER} 创建一个专有网络`, contextId)).toContain(NOT_STARTED.zh);
        const early = await reads(gateways[way], way, '继续', contextId);
        expect(early).toContain(TURN_IN_PROGRESS_ZH);
        expect(early).not.toContain(GATEWAY_FAILURES.upstreamTimedOut);
        const reply = await reads(gateways[way], way, '继续', contextId);
        expect(reply).toContain(WHOLE.zh);
        for (const said of AGENT_SAYS) expect(reply).toContain(said);
        expect(sentIn(contextId)).toBe(1);
      },
    );
  }

  it('stream: a short request-timeout-ms does not bound it: the reply comes whole once the agent speaks', async ({ expect }) => {
    const contextId = 'ctx-quiet-stream-request-bound';
    const reply = await reads(gateways.streamRequestBound, 'stream', `${LATE} 创建一个专有网络`, contextId);
    for (const said of AGENT_SAYS) expect(reply).toContain(said);
    expect(reply).not.toContain(NOT_STARTED.zh);
    expect(sentIn(contextId)).toBe(1);
  });
});
