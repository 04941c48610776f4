/**
 * A Bailian user's follow-up that reaches iac-code while iac-code runs another turn of the same conversation. The
 * gateway's turn ordering keeps it from iac-code when the gateway runs that turn itself; here two facade gateways that
 * share no store front one iac-code, as behind a load balancer. A conversation whose messages go now through the one,
 * now through the other, has a task at each: each gateway aims its next message at the task it knows, waiting for input,
 * and the other gateway's turn may be running then. iac-code waits a second for the context, then fails the task the
 * message named with "Task is already working." (docs/iac-code.md, "One turn per context"; the fake with `busyWaitMs`
 * does the same). So it does a message that names the running task itself (a caller that names its task, through the
 * gateway that does not run the turn), while that turn goes on. Its user reads, in their language, that the agent is
 * still at work on their previous message, the turn failed, in message/send, message/stream and tasks/get alike, never
 * iac-code's English; and their next message, once the running turn ended, reads its reply.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { EN } from '../../../src/surfaces/v025/reply/words-en.js';
import { ZH } from '../../../src/surfaces/v025/reply/words-zh.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { BUSY_CONTEXT_WORDS } from '../../support/fake-iac-code-busy.js';
import { openStream, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { readTurn, type Read, type Way } from './read-turn.js';

/** The captured turn's reply (fake-iac-code-data.ts), its file described in the turn's language: every successful turn of the fake. */
const ANSWER = /^Hello world\.\nmain\.tf \(text\/plain, 14 (bytes|字节)\)\nDone\.$/;

describe('a Bailian follow-up that reaches iac-code while another turn of its conversation runs there', () => {
  let fake: FakeIacCode;
  /** The gateway whose turn runs, and the one its user's next message comes to. */
  let running: RunningGateway;
  let other: RunningGateway;
  beforeAll(async () => {
    // A turn of some 1.1 s: the message's wait for the context (0.2 s) ends well inside it.
    fake = await startFakeIacCode({ frameDelayMs: 80, busyWaitMs: 200 });
    running = await startFacadeGateway({ upstream: { url: fake.url } });
    other = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await other?.close();
    await running?.close();
    await fake?.close();
  });

  /**
   * A conversation with a task at each gateway, then `text` sent in `way` through the other gateway while a turn of the
   * conversation runs through the one (`intoRunning`: the message names that turn's task itself); what the user read of
   * it, what tasks/get of its task then shows, and what they read of `next` once that turn ended.
   */
  async function whileRunning(way: Way, text: string, next: string, intoRunning = false): Promise<{ refused: Read; got: Read; after: Read }> {
    const contextId = `busy-${randomUUID()}`;
    const opened = await readTurn(running.url, 'send', '先创建一个VPC', contextId);
    // Bailian's profile shows every iac-code turn's end (input-required) completed (docs/bailian.md).
    expect(opened.state).toBe('completed');
    expect(await readTurn(other.url, 'send', '用哪个地域？', contextId)).toMatchObject({ text: expect.stringMatching(ANSWER), state: 'completed' });
    const second = await openStream(`${running.url}/stream`, 'message/stream', { message: userMessage({ text: '再加一个子网', contextId }) });
    // The agent is at work on it: its first words came.
    for (let frame = await second.next(); frame && !JSON.stringify(frame.json.result ?? {}).includes('Hello'); frame = await second.next());
    const refused = await readTurn(other.url, way, text, contextId, intoRunning ? opened.taskId : undefined);
    await second.rest();
    const { body } = await rpc(other.url, 'tasks/get', { id: refused.taskId });
    const got = { text: sentText(body.result), state: body.result.status.state, taskId: body.result.id };
    const after = await readTurn(other.url, way, next, contextId);
    return { refused, got, after };
  }

  const cases: Array<{ way: Way; language: string; words: typeof ZH; text: string; next: string; intoRunning?: boolean }> = [
    { way: 'send', language: 'Chinese', words: ZH, text: '再加一个安全组', next: '现在进展如何？' },
    { way: 'stream', language: 'English', words: EN, text: 'Please add a security group too', next: 'How is it going now?' },
    { way: 'stream', language: 'Chinese', words: ZH, text: '再加一个安全组', next: '现在进展如何？', intoRunning: true },
    { way: 'send', language: 'English', words: EN, text: 'Please add a security group too', next: 'How is it going now?', intoRunning: true },
  ];

  // Each in a conversation of its own, side by side: each waits out a running turn of about a second.
  for (const { way, language, words, text, next, intoRunning } of cases) {
    const into = intoRunning ? ', naming the running task' : '';
    it.concurrent(`${way}, ${language}${into}: the agent is still at work on the previous message; the next message reads its reply`, async () => {
      const { refused, got, after } = await whileRunning(way, text, next, intoRunning);
      expect(refused.text).not.toContain(BUSY_CONTEXT_WORDS);
      expect(refused).toMatchObject({ text: words.turnInProgress, state: 'failed' });
      expect(got).toEqual(refused);
      expect(after).toMatchObject({ text: expect.stringMatching(ANSWER), state: 'completed' });
    });
  }
});
