/**
 * A REAL a2a-js 1.x agent behind the facade whose turn fails after it said something (test/support/sdk-v1-failing-agent.ts):
 * its task store fails mid-turn, and its SDK ends the stream with its own JSON-RPC error (-32603, the store's message:
 * a local path and a token) in place of the turn's end, the task kept WORKING for good at the agent.
 * A Bailian user read the agent's words, then the agent's error in English words alone (a Chinese user too), and
 * then tasks/get said the task works for ever (the agent's own answer) and every later message of the conversation was
 * refused as a turn in progress. Now they read, over message/send and message/stream alike, the agent's words, then
 * in their language that the agent failed and why (its error scrubbed); tasks/get reads the same, failed; the
 * conversation's next message is answered. An executor that throws ends the stream with its SDK's own FAILED status:
 * read as the agent's failure, as before.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, expectNoLeak, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import {
  EXECUTOR_MESSAGE_SCRUBBED,
  FAILING_AGENT_DONE,
  FAILING_AGENT_SAYS,
  STORE_FAILURE_SCRUBBED,
  startFailingAgent,
} from '../../support/sdk-v1-failing-agent.js';

const H = { 'X-API-KEY': API_KEY };

const CASES = [
  {
    prompt: 'store-fails: 部署一个专有网络',
    reads: `${FAILING_AGENT_SAYS.zh.working}\n${FAILING_AGENT_SAYS.zh.plan}\n智能体出错，未能完成本次请求：${STORE_FAILURE_SCRUBBED}`,
  },
  {
    prompt: 'store-fails: deploy a VPC',
    reads: `${FAILING_AGENT_SAYS.en.working}\n${FAILING_AGENT_SAYS.en.plan}\nThe agent ran into an error and could not finish: ${STORE_FAILURE_SCRUBBED}`,
  },
  {
    prompt: 'throws: 部署一个专有网络',
    reads: `${FAILING_AGENT_SAYS.zh.working}\n${FAILING_AGENT_SAYS.zh.plan}\n智能体出错，未能完成本次请求：${EXECUTOR_MESSAGE_SCRUBBED}`,
  },
  {
    prompt: 'throws: deploy a VPC',
    reads: `${FAILING_AGENT_SAYS.en.working}\n${FAILING_AGENT_SAYS.en.plan}\nThe agent ran into an error and could not finish: ${EXECUTOR_MESSAGE_SCRUBBED}`,
  },
];

let agent: RunningTestAgent;
let gateway: RunningGateway;
beforeAll(async () => {
  agent = await startFailingAgent();
  gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

/** The conversation's next message, over `method`: what its user reads, or the error it was refused with. */
async function nextMessage(method: 'message/send' | 'message/stream', contextId: string): Promise<string> {
  const message = userMessage({ text: 'plan another', contextId });
  if (method === 'message/send') {
    const next = await rpc(gateway.url, method, { message }, { headers: H });
    return next.body.error ? `error: ${next.body.error.message}` : sentText(next.body.result);
  }
  const frames = await (await openStream(`${gateway.url}/stream`, method, { message }, { headers: H })).rest();
  const refused = frames.find((frame) => frame.json.error);
  return refused ? `error: ${refused.json.error.message}` : streamedText(results(frames));
}

describe.concurrent('a turn the agent fails after it said something', () => {
  it.for(CASES)(
    'message/stream ($prompt): its words, then that it failed and why; tasks/get the same; the next message answered',
    async ({ prompt, reads }, { expect }) => {
      const contextId = randomUUID();
      const stream = await openStream(
        `${gateway.url}/stream`,
        'message/stream',
        { message: userMessage({ text: prompt, contextId }) },
        { headers: H },
      );
      const frames = await stream.rest();
      expect(frames.filter((frame) => frame.json.error)).toEqual([]);
      const events = results(frames);
      expect(streamedText(events)).toBe(reads);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
      expectNoLeak(frames.map((frame) => frame.data).join('\n'));

      const got = await rpc(gateway.url, 'tasks/get', { id: events[0].id }, { headers: H });
      expect([got.body.result?.status.state, sentText(got.body.result)]).toEqual(['failed', reads]);
      expect(await nextMessage('message/stream', contextId)).toBe(FAILING_AGENT_DONE);
    },
  );

  it.for(CASES)('message/send ($prompt): the same; the next message answered', async ({ prompt, reads }, { expect }) => {
    const contextId = randomUUID();
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: prompt, contextId }) }, { headers: H });
    expect([sent.body.result?.status.state, sentText(sent.body.result)]).toEqual(['failed', reads]);
    expectNoLeak(sent.text);
    const got = await rpc(gateway.url, 'tasks/get', { id: sent.body.result.id }, { headers: H });
    expect([got.body.result?.status.state, sentText(got.body.result)]).toEqual(['failed', reads]);
    expect(await nextMessage('message/send', contextId)).toBe(FAILING_AGENT_DONE);
  });
});

it('the agent keeps the store-failed task working for good; the gateway reads it failed', async () => {
  const contextId = randomUUID();
  const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'store-fails: deploy a VPC', contextId }) }, { headers: H });
  const atTheAgent = await fetch(`${agent.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: sent.body.result.id } }),
  }).then((answer) => answer.json() as Promise<{ result: { status: { state: string } } }>);
  expect(atTheAgent.result.status.state).toBe('TASK_STATE_WORKING');
  const got = await rpc(gateway.url, 'tasks/get', { id: sent.body.result.id }, { headers: H });
  expect(got.body.result.status.state).toBe('failed');
});
