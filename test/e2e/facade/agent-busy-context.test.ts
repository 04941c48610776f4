/**
 * A Bailian user whose message reaches iac-code while iac-code still runs another turn of the same conversation:
 * here, two facade gateways that share no store in front of one agent, the conversation's first message still at
 * work through the one when its user's next message comes through the other (so does another client of the same
 * context, or a turn the gateway stopped following). iac-code takes the message as a new task, waits a second for
 * the context, then fails that task with "Task is already working." (docs/iac-code.md, "One turn per context"); the
 * demo agent does the same. Its user reads, in their language, that the agent is still at work on their previous
 * message, the turn failed (the gateway's own turn-in-progress refusal is an error, read as a failure), in
 * message/send, message/stream and tasks/get alike, and their next message, once the running turn ended, reads
 * its reply and nothing owed before it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { BUSY_CONTEXT_MESSAGE, demoReply, startDemoAgent, type RunningDemoAgent } from '../../../src/demo-agent/index.js';
import { EN } from '../../../src/surfaces/v025/reply/words-en.js';
import { JA } from '../../../src/surfaces/v025/reply/words-ja.js';
import { ZH } from '../../../src/surfaces/v025/reply/words-zh.js';
import { openStream, results, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { readTurn, type Read, type Way } from './read-turn.js';

describe('a Bailian message that reaches iac-code busy with another turn of its conversation', () => {
  let agent: RunningDemoAgent;
  /** The gateway the conversation's running turn went through, and the one its user's next message comes to. */
  let running: RunningGateway;
  let other: RunningGateway;
  beforeAll(async () => {
    // A running turn of about three seconds: the busy message's one-second wait ends well inside it.
    agent = await startDemoAgent({ slowChunkDelayMs: 120 });
    running = await startFacadeGateway({ upstream: { url: agent.url } });
    other = await startFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await other?.close();
    await running?.close();
    await agent?.close();
  });

  /**
   * `text` sent in `way` while a turn of its conversation runs at the agent; then, once that turn ended, `next`:
   * what the user read of each, and what tasks/get shows of the refused task.
   */
  async function whileBusy(way: Way, text: string, next: string): Promise<{ refused: Read; got: Read; after: Read }> {
    const contextId = `busy-${randomUUID()}`;
    const first = await openStream(`${running.url}/stream`, 'message/stream', { message: userMessage({ text: 'slow: 先创建一个VPC', contextId }) });
    // The agent is at work on it: its first words came.
    for (let frame = await first.next(); frame && frame.json.result?.kind !== 'artifact-update'; frame = await first.next());
    const refused = await readTurn(other.url, way, text, contextId);
    const firstEnd = results(await first.rest()).at(-1);
    expect(firstEnd.status.state).toBe('completed');
    const { body } = await rpc(other.url, 'tasks/get', { id: refused.taskId });
    const got = { text: sentText(body.result), state: body.result.status.state, taskId: body.result.id };
    const after = await readTurn(other.url, way, next, contextId);
    return { refused, got, after };
  }

  const cases: Array<{ way: Way; language: string; words: typeof ZH; text: string; next: string }> = [
    { way: 'send', language: 'Chinese', words: ZH, text: '再加一个安全组', next: '现在进展如何？' },
    { way: 'stream', language: 'Chinese', words: ZH, text: '再加一个安全组', next: '现在进展如何？' },
    { way: 'send', language: 'Japanese', words: JA, text: 'セキュリティグループも追加してください', next: '進み具合はどうですか' },
    { way: 'stream', language: 'English', words: EN, text: 'Please add a security group too', next: 'How is it going now?' },
  ];

  // Each in a conversation of its own, side by side: each waits out a running turn of some three seconds.
  for (const { way, language, words, text, next } of cases) {
    it.concurrent(`${way}, ${language}: the agent is still at work on the previous message, failed; the next message reads its reply`, async () => {
      const { refused, got, after } = await whileBusy(way, text, next);
      expect(refused).toMatchObject({ text: words.turnInProgress, state: 'failed' });
      expect(refused.text).not.toContain(BUSY_CONTEXT_MESSAGE);
      expect(got).toEqual(refused);
      // The busy turn did not count at the agent (its second turn), and nothing was owed before its reply.
      expect(after).toMatchObject({ text: demoReply(next, 2).full, state: 'completed' });
    });
  }

  it("the agent's own answer that holds the refusal's words reads as it said them", async () => {
    const contextId = `own-${randomUUID()}`;
    const failure = `部署失败：${BUSY_CONTEXT_MESSAGE}`;
    for (const way of ['send', 'stream'] as const) {
      expect(await readTurn(other.url, way, `fail:${failure}`, contextId)).toMatchObject({ text: failure, state: 'failed' });
    }
    const answer = await readTurn(other.url, 'stream', BUSY_CONTEXT_MESSAGE, contextId);
    expect(answer).toMatchObject({ text: demoReply(BUSY_CONTEXT_MESSAGE, 3).full, state: 'completed' });
  });
});
