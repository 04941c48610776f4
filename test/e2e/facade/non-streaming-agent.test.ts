/**
 * Bailian streams every turn (`message/stream`), whatever the agent behind the facade can do. In front of a
 * real a2a-js 1.x agent whose card says `streaming: false` (its SDK then refuses every streaming method), the
 * facade asks it the blocking way and streams the user its answer: the same words as `message/send`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { sdkReply, startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

describe('the facade in front of an agent that does not stream', () => {
  let agent: RunningSdkV1Agent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startSdkV1Agent({ streaming: false });
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('the agent itself refuses a stream', async () => {
    const answer = await fetch(`${agent.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm-0', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      }),
    });
    expect(await answer.text()).toMatch(/-32004|not supported/i);
  });

  it('message/stream shows the answer the agent gave, as message/send does, and follow-ups continue the conversation', async () => {
    const stream = await openStream(
      `${gateway.url}/stream`,
      'message/stream',
      { message: userMessage({ text: 'deploy a VPC' }) },
      { headers: { 'X-API-KEY': API_KEY } },
    );
    const events = results(await stream.rest());
    expect(events[0]).toMatchObject({ kind: 'task' });
    expect(events.filter((event) => event.final === true)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(streamedText(events)).toBe(sdkReply('deploy a VPC', 1).full);

    const contextId = events[0].contextId;
    const sent = await rpc(
      gateway.url,
      'message/send',
      { message: userMessage({ text: 'and a vSwitch', contextId }) },
      { headers: { 'X-API-KEY': API_KEY } },
    );
    expect(sent.body.result.status.state).toBe('completed');
    expect(sentText(sent.body.result)).toBe(sdkReply('and a vSwitch', 2).full);
  });
});
