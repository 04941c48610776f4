/**
 * The same real a2a-js 0.2.5 agent read three ways: by the official a2a-js 0.2.5 client straight from the
 * agent, through the relaying facade (profile a2a-0.2.5), and by a Bailian user through the translating
 * facade (profile bailian). The relay must hand the client what the agent said, event for event, in both
 * methods; Bailian's user, who reads artifacts' text/plain only, must read every word once, the file and the
 * data as text, the question and the failure's reason. A caller that hangs up a message/send hangs up the
 * agent's call too.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, collect, facadeTurnReads, sdkParams, startFacadeGateway, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';
import { stubKeyedFetch } from '../../support/keyed-fetch.js';
import { waitUntil } from '../../support/wait-until.js';
import { CSV, FAILURE, PROGRESS, QUESTION, startExploreRelayAgent, type ExploreRelayAgent } from './explore-relay-agent.js';

let agent: ExploreRelayAgent;
let relaying: RunningGateway;
let translating: RunningGateway;
const KEY = { 'X-API-KEY': API_KEY };
const reads = facadeTurnReads(() => translating.url, KEY);

/** fetch as it is: the stub below adds the facade's key to the relaying facade's calls, as Bailian sends it. */
/** What a client reads of a turn, ids, message ids and timestamps aside (each turn makes its own). */
const shape = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, field) => (['id', 'taskId', 'contextId', 'messageId', 'timestamp'].includes(key) ? '…' : field));

beforeAll(async () => {
  agent = await startExploreRelayAgent();
  relaying = await startRelayingFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  translating = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  stubKeyedFetch(relaying.url);
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await relaying?.close();
  await translating?.close();
  await agent?.close();
});

describe.each(['rates', 'ask', 'fail'])('the %s turn', (prompt) => {
  it('relayed: the a2a-js 0.2.5 client reads what it reads from the agent itself, streamed and sent', async () => {
    const direct = new A2AClient(agent.url);
    const relayed = new A2AClient(relaying.url);
    expect(shape(await collect(relayed.sendMessageStream(sdkParams(prompt))))).toStrictEqual(
      shape(await collect(direct.sendMessageStream(sdkParams(prompt)))),
    );
    expect(shape(await relayed.sendMessage(sdkParams(prompt)))).toStrictEqual(shape(await direct.sendMessage(sdkParams(prompt))));
  });
});

const EXPECTED: Record<string, { words: string[]; state: string }> = {
  rates: { words: [PROGRESS, 'rates.csv', CSV.trim(), '"usd": 7.253', 'The rates table is attached.'], state: 'completed' },
  ask: { words: [PROGRESS, QUESTION], state: 'input-required' },
  fail: { words: [PROGRESS, FAILURE], state: 'failed' },
};

describe.each(['stream', 'send'] as const)('translated, a Bailian user over message/%s reads', (method) => {
  it.each(Object.keys(EXPECTED))('every word of the %s turn once', async (prompt) => {
    const { text, state } = await reads[method](prompt);
    const expected = EXPECTED[prompt]!;
    for (const words of expected.words) expect(text.split(words).length - 1, `${JSON.stringify(words)} in ${JSON.stringify(text)}`).toBe(1);
    // The agent is not iac-code: its question ends input-required, so Bailian routes the answer back to it (docs/bailian.md).
    expect(state).toBe(expected.state);
  });
});

it("relayed: a caller hanging up its message/send hangs up the agent's call", async () => {
  const controller = new AbortController();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage({ text: 'long' }) } });
  const sent = fetch(relaying.url, { method: 'POST', headers: { 'content-type': 'application/json', ...KEY }, body, signal: controller.signal });
  await new Promise((resolve) => setTimeout(resolve, 300));
  controller.abort();
  await expect(sent).rejects.toThrow();
  await waitUntil(async () => agent.hungUp.includes('message/send'), 2000);
});
