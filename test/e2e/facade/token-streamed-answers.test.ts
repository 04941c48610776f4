/**
 * What a Bailian user reads of an a2a-js 1.x agent that streams its answer token by token
 * (token-streaming-agent.ts), through the facade as Bailian calls it (raw 0.2.5 JSON-RPC with X-API-KEY, at
 * the card's url and url + "/stream"): the agent's words as it wrote them, the same in message/send and
 * message/stream (also when it closes under the id of its tokens, or each message holds the whole text so far), and a
 * turn canceled without a word told as canceled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, facadeTurnReads, openStream, results, rpc, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { CODE_TOKENS, CUMULATIVE_LISTS, CUMULATIVE_PIECES, FINISH_ANSWER, SLOW_PROGRESS, startTokenStreamer } from './token-streaming-agent.js';

const headers = { 'X-API-KEY': API_KEY };

describe('a Bailian user in front of an agent that streams its answer token by token', () => {
  let agent: { url: string; close(): Promise<void> };
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startTokenStreamer();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const ways = facadeTurnReads(() => gateway.url, headers);
  async function bothWays(prompt: string): Promise<{ streamed: string; sent: string; state: string }> {
    const streamed = await ways.stream(prompt);
    const sent = await ways.send(prompt);
    expect(sent.state).toBe(streamed.state);
    return { streamed: streamed.text, sent: sent.text, state: streamed.state };
  }

  it('tokens that stop short of the last word, then the whole answer: the answer as the agent wrote it, no line break inside', async () => {
    const { streamed, sent, state } = await bothWays('finish');
    expect(streamed).toBe(FINISH_ANSWER);
    expect(sent).toBe(streamed);
    expect(state).toBe('completed');
  });

  it('code streamed in tokens that split its identifiers: the code unchanged', async () => {
    const { streamed, sent } = await bothWays('code');
    expect(streamed).toBe(CODE_TOKENS.join(''));
    expect(sent).toBe(streamed);
  });

  it('tokens under one messageId, then a closing message under that id: the words of the agent once, new words on a line of their own', async () => {
    const read = async (prompt: string) => {
      const { streamed, sent, state } = await bothWays(prompt);
      expect(sent).toBe(streamed);
      expect(state).toBe('completed');
      return streamed;
    };
    expect(await read('running-new')).toBe('正在部署\n部署完成。');
    expect(await read('running-whole')).toBe('正在部署完成。');
    expect(await read('running-end')).toBe('资源已创建。部署完成。');
    expect(await read('running-lower')).toBe('The stack is deployed.');
  });

  it('messages that each hold the whole text so far: the text once, laid out as written (no blank line after each line)', async () => {
    const { streamed, sent, state } = await bothWays('cumulative');
    expect(streamed).toBe(CUMULATIVE_PIECES.join(''));
    expect(sent).toBe(streamed);
    expect(state).toBe('completed');
  });

  it('two answers in a row, each a list that each message holds up to a line: each line once', async () => {
    const { streamed, sent } = await bothWays('cumulative-lists');
    expect(streamed).toBe(CUMULATIVE_LISTS.flat().join(''));
    expect(sent).toBe(streamed);
  });

  it('a turn canceled without a word: the user reads that it was canceled, not just the progress line', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'slow' }) }, { headers });
    const opening = await stream.next();
    const taskId = opening?.json.result.id;
    // The progress line: the agent works on the turn.
    const progress = await stream.next();
    expect(progress?.json.result.kind).toBe('artifact-update');
    const canceled = await rpc(gateway.url, 'tasks/cancel', { id: taskId }, { headers });
    expect(canceled.body.result.status.state).toBe('failed');
    const events = [opening?.json.result, progress?.json.result, ...results(await stream.rest())];
    expect(streamedText(events)).toBe(`${SLOW_PROGRESS}\nThe request was canceled before it was finished.`);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
  });
});
