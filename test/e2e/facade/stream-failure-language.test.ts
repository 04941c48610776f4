/**
 * A turn that fails reads the same to a Bailian user on message/stream as on message/send, in the turn's
 * language: an agent that accepts the call and says nothing until `upstream.first-event-timeout-ms` (the
 * stream's answer is then an error frame after its opening comment), one whose stream goes idle past
 * `upstream.stream-idle-timeout-ms` mid-turn, and one that drops the connection mid-turn (each with the
 * facade's recovery failing too).
 */
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/index.js';
import { STREAM_ACCEPTED_COMMENT } from '../../../src/surfaces/shared/stream-open.js';
import { startFakeIacCode, type FakeIacCode, type FaultName } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

/** The calls of a turn and of its recovery after a break (not the card). */
const TURN_CALLS = new Set(['SendStreamingMessage', 'SubscribeToTask', 'GetTask']);
/** What a new task's turn that said nothing within its bound reads (words.notStartedYet). */
const NOT_STARTED = { zh: facadeWords('zh').notStartedYet, en: facadeWords('en').notStartedYet };
const TIMEOUTS = { 'first-event-timeout-ms': 400, 'stream-idle-timeout-ms': 600, 'request-timeout-ms': 1_500 };

/** What a Bailian user reads of a turn: the error's message when the call is answered with one, else the reply's text. */
async function streamReads(url: string, text: string): Promise<string> {
  const frames = await (await openStream(`${url}/stream`, 'message/stream', { message: userMessage({ text }) })).rest();
  const error = frames.find((frame) => frame.json.error !== undefined);
  return error ? error.json.error.message : streamedText(results(frames));
}

async function sendReads(url: string, text: string): Promise<string> {
  const answer = await rpc(url, 'message/send', { message: userMessage({ text }) });
  return answer.body.error ? answer.body.error.message : sentText(answer.body.result);
}

describe('facade turns that fail, read on message/stream and message/send', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  /** The fault every call of the turn meets (its stream, and the facade's resubscription and reads after a break). */
  let fault: { name: FaultName; after: number } | undefined;
  beforeAll(async () => {
    fake = await startFakeIacCode({ fault: (request) => (request.rpcMethod && TURN_CALLS.has(request.rpcMethod) ? fault : undefined) });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, ...TIMEOUTS } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  async function bothReads(text: string): Promise<{ stream: string; send: string }> {
    // At once: each waits out the turn's bounds, and the fault is the same for every call meanwhile.
    const [stream, send] = await Promise.all([streamReads(gateway.url, text), sendReads(gateway.url, text)]);
    return { stream, send };
  }

  it("an agent that accepts and stays silent past the first-event bound: told it has not started yet (stream), in the turn's language", async () => {
    // A new task that no event named yet: followed on (unwatched-new-task-before-first-event.test.ts), not told a time-out.
    fault = { name: 'hang-mid-stream', after: 0 };
    const [chinese, english] = await Promise.all([bothReads('帮我部署一个网站'), bothReads('Deploy a website for me')]);
    // message/send has no first-event bound: the upstream's idle bound (600 ms) fails its call before its own (1 500 ms) passes.
    expect(chinese).toEqual({ stream: NOT_STARTED.zh, send: '上游智能体响应超时' });
    expect(english.stream).toBe(NOT_STARTED.en);
    expect(english.send).toMatch(new RegExp(`^${GATEWAY_FAILURES.upstreamTimedOut}`));
  });

  it('those words come as an unnamed event after the opening comment: a client that reads default events only gets them', async () => {
    fault = { name: 'hang-mid-stream', after: 0 };
    const response = await fetch(`${gateway.url}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method: 'message/stream', params: { message: userMessage({ text: '帮我部署一个网站' }) } }),
    });
    const text = await response.text();
    expect(text.startsWith(`: ${STREAM_ACCEPTED_COMMENT}`)).toBe(true);
    // An EventSource's onmessage: events without a name (or named `message`), nothing else.
    const defaultEvents: unknown[] = [];
    createParser({
      onEvent: (event) => (event.event === undefined || event.event === 'message' ? defaultEvents.push(JSON.parse(event.data)) : undefined),
    }).feed(text);
    expect(defaultEvents).toEqual([{ jsonrpc: '2.0', id: 'r-1', error: { code: -32603, message: NOT_STARTED.zh } }]);
  });

  /**
   * `send`: what message/send reads when it differs. Its bound (`request-timeout-ms`) passes while the facade still
   * tries to follow the silent task, which may still be at work: its user reads that the agent goes on
   * (unwatched-turns.ts), not a time-out that has them send the request again.
   */
  const breaks: Array<{ name: FaultName; reason: { zh: string; en: string }; send?: { zh: string; en: string } }> = [
    {
      name: 'hang-mid-stream',
      reason: { zh: '上游智能体响应超时', en: GATEWAY_FAILURES.upstreamTimedOut },
      send: { zh: '智能体处理时间较长，本次回复已停止等待', en: 'The agent is taking longer than this reply can wait' },
    },
    { name: 'kill-mid-stream', reason: { zh: '暂时无法连接上游智能体', en: GATEWAY_FAILURES.upstreamUnavailable } },
  ];
  for (const { name, reason, send } of breaks) {
    it(`${name} after the agent began: what it said, then why the turn failed, alike and in the turn's language`, async () => {
      fault = { name, after: 4 };
      const [chinese, english] = await Promise.all([bothReads('帮我部署一个网站'), bothReads('Deploy a website for me')]);
      if (!send) expect(chinese.stream).toBe(chinese.send);
      expect(chinese.stream).toMatch(new RegExp(`^Hello .*\\n${reason.zh}$`, 's'));
      expect(chinese.send).toMatch(new RegExp(`^Hello .*\\n${(send ?? reason).zh}`, 's'));
      expect(english.stream).toMatch(new RegExp(`^Hello .*\\n${reason.en}`, 's'));
      expect(english.send).toMatch(new RegExp(`^Hello .*\\n${(send ?? reason).en}`, 's'));
    });
  }
});
