/**
 * A message/stream (or message/send) that opens a new task, hung up by its caller (Bailian's own time-out) after
 * the message reached the agent and before the agent's first event: iac-code goes on with the turn, whose task no
 * event named yet. The facade follows the upstream call as it does past its own bound
 * (unwatched-new-task-before-first-event.test.ts) rather than ending it with its caller's close: once the first
 * event names the task the turn is noted as one whose caller read nothing, and the conversation's next message
 * ("继续", or the same message sent again) reads the agent's reply instead of reaching a busy agent a second time.
 * A shutdown's drain ends such a followed call.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { fakeMessagesIn, fakeTaskState, readsOrRefusal, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import { agentStateOf, DONE, quietAgentBehindFacade, read, REST_WORDS, stream, WHOLE_WORDS } from './rollout-agent.js';

/** The agent's first frame comes 1.5 s after the call: its caller hangs up well before. */
const LATE = '[fault:quiet after=0 ms=1500]';

type Way = 'send' | 'stream';

const WHOLE = {
  en: 'Here is the reply to your previous message, whose connection was interrupted before any of it reached you.',
  zh: '以下是你上一条消息的完整回复：此前连接中断，这条回复没有送达。',
};
const WHOLE_OF_SAME = {
  en: 'The message you just sent is the same as your previous one, whose connection was interrupted',
  zh: '你刚发送的消息与连接中断的上一条消息相同',
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const reads = (url: string, way: Way, text: string, contextId: string): Promise<string> => readsOrRefusal(url, way, userMessage({ text, contextId }));

/**
 * The turn's call as Bailian makes it (plain fetch), hung up once `reached` holds (its message is at the agent);
 * asserts no event had come by then (a stream: at most its opening comment).
 */
async function hangUpBeforeFirstEvent(url: string, way: Way, text: string, contextId: string, reached: () => boolean): Promise<void> {
  const controller = new AbortController();
  const method = way === 'send' ? 'message/send' : 'message/stream';
  let body = '';
  const call = fetch(way === 'send' ? url : `${url}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: way === 'send' ? 'application/json' : 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params: { message: userMessage({ text, contextId }) } }),
    signal: controller.signal,
  }).then(
    async (response) => {
      const reader = response.body?.getReader();
      for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) body += new TextDecoder().decode(chunk.value);
    },
    () => undefined,
  );
  await waitUntil(async () => reached());
  // A moment for a stream's opening comment: a caller that reads its stream open, then gives up.
  await sleep(way === 'stream' ? 300 : 50);
  controller.abort();
  await call.catch(() => undefined);
  expect(body).not.toContain('data:');
}

// Each test its own conversation: they wait out the agent's silence side by side.
describe.concurrent('a turn that opens a new task, whose caller hangs up before the agent says anything (iac-code)', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const sent = (contextId: string): number => fakeMessagesIn(fake, contextId);
  const agentState = (contextId: string): string | undefined => fakeTaskState(fake, contextId);

  const CASES = [
    { way: 'stream', language: 'zh', text: `${LATE} 创建一个专有网络`, next: '继续' },
    { way: 'send', language: 'zh', text: `${LATE} 创建一个专有网络`, next: '继续' },
    { way: 'stream', language: 'en', text: `${LATE} create a vpc`, next: 'continue' },
    { way: 'send', language: 'en', text: `${LATE} create a vpc`, next: 'continue' },
  ] as const;

  for (const { way, language, text, next } of CASES) {
    it(`${way}, ${language}: the next message reads the agent's reply, the agent asked once`, async ({ expect }) => {
      const contextId = `ctx-new-task-hung-up-${way}-${language}-${randomUUID()}`;
      await hangUpBeforeFirstEvent(gateway.url, way, text, contextId, () => sent(contextId) === 1);
      await waitUntil(async () => agentState(contextId) === 'TASK_STATE_INPUT_REQUIRED', 10_000);
      const reply = await reads(gateway.url, way, next, contextId);
      expect(reply).toContain(WHOLE[language]);
      expect(reply).toContain('Done.');
      // The next message was not sent to the agent: it read the turn the agent ran.
      expect(sent(contextId)).toBe(1);
    });
  }

  for (const way of ['stream', 'send'] as const) {
    it(`${way}: the same message sent again at once joins the turn: its reply, the agent asked once`, async ({ expect }) => {
      const contextId = `ctx-new-task-hung-up-again-${way}-${randomUUID()}`;
      const text = `${LATE} 创建一个交换机`;
      await hangUpBeforeFirstEvent(gateway.url, way, text, contextId, () => sent(contextId) === 1);
      const again = await reads(gateway.url, way, text, contextId);
      expect(again).toContain(WHOLE_OF_SAME.zh);
      expect(again).toContain('Done.');
      expect(sent(contextId)).toBe(1);
    });
  }
});

/** message/stream's case with this agent: unwatched-turns-before-first-event.test.ts. */
describe('a REAL a2a-js 1.x agent whose new task its message/send caller hung up on before its first event', () => {
  const quiet = quietAgentBehindFacade();
  const { gates, executor } = quiet;

  for (const way of ['send'] as const) {
    it(`${way}: the next message shows the agent's reply, not sent`, async () => {
      const contextId = `ctx-new-task-hung-up-sdk-${way}-${randomUUID()}`;
      // The agent holds its first event (and so its headers) until the test lets it go, after the hang-up.
      gates.reset(1);
      await hangUpBeforeFirstEvent(quiet.gateway.url, way, '规划一个VPC', contextId, () => gates.reached === 1);
      // The facade hears of the hang-up before the agent goes on.
      await sleep(150);
      gates.open();
      await waitUntil(async () => (await agentStateOf(quiet.agent.url, gates.taskId)) === 'TASK_STATE_COMPLETED', 10_000);
      const executions = executor.executions;
      const next = await read(await stream(quiet.gateway.url, '你好', contextId));
      expect(next.text).toContain(WHOLE_WORDS);
      expect(next.text).not.toContain(REST_WORDS);
      expect(next.text).toContain(DONE);
      expect(executor.executions).toBe(executions);
    });
  }
});

describe('a gateway shut down while it follows a turn whose caller hung up before its first event', () => {
  for (const way of ['stream', 'send'] as const) {
    it(`${way}: the call to the agent outlives its caller, and the drain ends it: the close does not wait for the agent`, async () => {
      const fake = await startFakeIacCode();
      const gateway = await startFacadeGateway({ 'drain-timeout-ms': 200, upstream: { url: fake.url } });
      try {
        await hangUpBeforeFirstEvent(gateway.url, way, '[fault:hang-before-headers] 创建一个专有网络', `ctx-hung-up-drain-${way}`, () =>
          fake.requests.some((r) => r.rpcMethod === 'SendStreamingMessage'),
        );
        const call = fake.requests.find((request) => request.rpcMethod === 'SendStreamingMessage')!;
        // The agent's call is still open once the gateway saw its caller leave: it is followed, not ended with it.
        await sleep(500);
        expect(call.closedByClient).toBe(false);
        const closed = gateway.close().then(() => 'closed');
        // Followed for as long again as its bound (300 s here: the first event's default bound): a close that waited for it hangs.
        const waited = new Promise((resolve) => setTimeout(resolve, 15_000, 'still open').unref());
        expect(await Promise.race([closed, waited])).toBe('closed');
        expect(await call.closed).toBe('client-closed');
      } finally {
        await fake.close();
      }
    });
  }
});
