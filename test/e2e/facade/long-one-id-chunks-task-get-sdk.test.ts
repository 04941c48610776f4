/**
 * tasks/get shows a Bailian user the whole reply a real a2a-js 1.x agent streamed in more chunks of one message id
 * than the gateway's record keeps messages (`tasks.history-limit`): the agent's store keeps the first chunk alone,
 * and the record, bounded to its last messages, must still hold the rest of the words (task-registry/merged-runs.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startTokenStreamer } from '../../support/token-streamer.js';

/** More chunks than the record below keeps messages: an LLM's tokens. */
const CHUNKS = Array.from({ length: 45 }, (_, i) => `第${i}段，`);
const REPLY = CHUNKS.join('');

const headers = { 'X-API-KEY': API_KEY };

describe('a reply of more one-id chunks than tasks.history-limit, read again with tasks/get', () => {
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startTokenStreamer(CHUNKS);
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY }, tasks: { 'history-limit': 20 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const got = async (id: string): Promise<string> => sentText((await rpc(gateway.url, 'tasks/get', { id }, { headers })).body.result);

  it('tasks/get shows what message/send and message/stream showed, read after read', async () => {
    const sent = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: '介绍一下专有网络' }) }, { headers })).body.result;
    const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: '介绍一下专有网络' }) }, { headers });
    const streamed = results(await opened.rest());
    expect(sentText(sent)).toBe(REPLY);
    expect(streamedText(streamed)).toBe(REPLY);
    const reads = [await got(sent.id), await got(sent.id), await got(streamed[0].id), await got(streamed[0].id)];
    expect(reads).toEqual([REPLY, REPLY, REPLY, REPLY]);
  });
});
